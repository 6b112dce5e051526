/**
 * The demo server (dist/demo-server.js) in HTTP mode: DNS-rebinding protection (a foreign Host or
 * Origin gets 403, as a bad Host got 200 before), and the server scenarios of the conformance suite
 * for what it declares (tools, a resource, a prompt). Scenarios that need the reference server's
 * names (test_image_content, test://static-text, test_simple_prompt, ...) or capabilities it does not
 * declare (logging, completions, subscriptions) are not applicable.
 */
import { execFile } from "node:child_process";
import { request } from "node:http";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, DEMO_SERVER, REPO, startServer } from "./_helpers.js";

afterAll(cleanup);

const SUITE = path.join(REPO, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
/** 0.2.0-alpha.12, the only release with the 2026-07-28 scenarios (installed as conformance-next). */
const SUITE_NEXT = path.join(REPO, "node_modules/conformance-next/dist/index.js");
const GLOBSYNC = path.join(REPO, "tests/conformance/node20-globsync.mjs");
const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } };

/** node:http, not fetch: fetch does not let a caller set Host. */
function post(url: string, headers: Record<string, string>): Promise<{ status: number; text: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: async () => body }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(INIT));
  });
}

function scenario(url: string, name: string, suite = SUITE, extra: string[] = []): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    // The timeout is a hung run's safety net, not a measure.
    execFile(process.execPath, ["--import", GLOBSYNC, suite, "server", "--url", url, "--scenario", name, ...extra], { timeout: 100_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe("demo server over HTTP", () => {
  it("refuses a foreign Host or Origin (DNS rebinding); serves its own", { timeout: 30_000 }, async () => {
    const { port } = await startServer([DEMO_SERVER, "--http", "0"], /listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const url = `http://127.0.0.1:${port}/mcp`;
    const badHost = await post(url, { host: `evil.example:${port}` });
    expect(badHost.status).toBe(403);
    expect(await badHost.text()).toContain('Host \\"evil.example:');
    expect((await post(url, { origin: "http://evil.example" })).status).toBe(403);
    expect((await post(url, { origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await post(url, {})).status).toBe(200);

    const applicable = ["server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"];
    const results = await Promise.all(applicable.map((s) => scenario(url, s)));
    for (const [i, r] of results.entries()) expect({ scenario: applicable[i], code: r.code, out: r.code ? r.out.slice(-1500) : "" }).toEqual({ scenario: applicable[i], code: 0, out: "" });
  });

  it("passes the 2026-07-28 server scenarios that apply to it (conformance 0.2.0-alpha.12)", async () => {
    const { port } = await startServer([DEMO_SERVER, "--http", "0"], /listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const url = `http://127.0.0.1:${port}/mcp`;
    const at2026 = ["--spec-version", "2026-07-28"];
    const applicable = ["tools-list", "resources-list", "prompts-list", "dns-rebinding-protection", "http-header-validation", "caching", "sep-2164-resource-not-found"];
    const results = await Promise.all(applicable.map((s) => scenario(url, s, SUITE_NEXT, at2026)));
    for (const [i, r] of results.entries()) expect({ scenario: applicable[i], code: r.code, out: r.code ? r.out.slice(-1500) : "" }).toEqual({ scenario: applicable[i], code: 0, out: "" });

    // server-stateless (SEP-2575): every check passes but those that need the reference server's diagnostic
    // tools (test_missing_capability, test_streaming_elicitation, test_logging_tool), which the suite says are
    // not testable here.
    const stateless = (await scenario(url, "server-stateless", SUITE_NEXT, at2026)).out.replace(/\x1b\[[0-9;]*m/g, "");
    const failed = [...stateless.matchAll(/\[([\w-]+)\s*\] FAILURE/g)].map((m) => m[1]);
    expect(stateless).toMatch(/\[sep-2575-[\w-]+\s*\] SUCCESS/);
    expect(failed.sort()).toEqual([
      "sep-2575-http-server-no-independent-requests-on-stream",
      "sep-2575-missing-capability-http-400",
      "sep-2575-server-no-log-without-loglevel",
      "sep-2575-server-rejects-undeclared-capability",
    ]);
    const errors = [...stateless.matchAll(/^\s+Error: (.*)$/gm)].map((m) => m[1]);
    expect(errors).toHaveLength(4);
    for (const e of errors) expect(e).toMatch(/^Not testable: server does not list the diagnostic tool/);
  });
});
