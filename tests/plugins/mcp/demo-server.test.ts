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

function scenario(url: string, name: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", GLOBSYNC, SUITE, "server", "--url", url, "--scenario", name], { timeout: 30_000 }, (err, stdout, stderr) =>
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
});
