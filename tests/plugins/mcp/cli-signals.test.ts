/**
 * The built CLI (`node dist/cli.js call …`, run `npm run build` first) killed at the worst moment:
 * - `kill -9` leaves no code to run, so core's watchdog must kill what was tracked: every stdio server
 *   is tracked right after it is spawned, with its process group (grandchildren included), and the
 *   group stays tracked after the server exits until the rest of it is gone.
 * - SIGTERM mid-call cancels the running request on the server (`notifications/cancelled`) and
 *   audits the call as `aborted`; SIGTERM during a handshake still stops the server in order
 *   (stdin closed, SIGTERM, then SIGKILL).
 * Servers carry a unique marker in their argv, so what is left is found with `ps`.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, fixture, waitFor } from "./_helpers.js";
import { finished, processesWith, project, startAgent } from "./_cli.js";

const markers: string[] = [];
afterAll(async () => {
  // A failed test must not leave its servers running: kill what carries one of our markers.
  for (const m of markers) for (const p of processesWith(m)) process.kill(p.pid, "SIGKILL");
  await cleanup();
});

function mark(what: string): string {
  const marker = `${what}-${randomUUID()}`;
  markers.push(marker);
  return marker;
}

function read(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

async function expectNoneLeft(marker: string): Promise<void> {
  await waitFor(() => processesWith(marker).length === 0, `every process with ${marker} to be gone`, 5000).catch(() => {});
  expect(processesWith(marker)).toEqual([]);
}

describe("kill -9 of the CLI leaves no server behind", () => {
  it("during a call, with a grandchild the server started", async () => {
    const marker = mark("k9-call");
    const p = project();
    const pidFile = path.join(p.dir, "grandchild.pid");
    p.write(".mcp.json", { mcpServers: { g: { ...fixture("grandchild", "--marker", marker), env: { GRANDCHILD_PID_FILE: pidFile } } } });
    const child = startAgent(p, ["call", "--permission-mode", "bypass", "mcp__g__spawn_and_hang", "{}"]);
    const done = finished(child);
    const grandchild = Number(await waitFor(() => read(pidFile), "the grandchild to start"));
    expect(processesWith(marker).map((x) => x.pid)).toContain(grandchild);
    expect(processesWith(marker)).toHaveLength(2);
    child.kill("SIGKILL");
    expect((await done).signal).toBe("SIGKILL");
    await expectNoneLeft(marker);
  });

  it("after the server exited, leaving a grandchild in its group (still being stopped)", async () => {
    const marker = mark("k9-left");
    const p = project();
    const serverPid = path.join(p.dir, "server.pid");
    p.write(".mcp.json", { mcpServers: { g: { ...fixture("grandchild", "--marker", marker), env: { SERVER_PID_FILE: serverPid } } } });
    const child = startAgent(p, ["call", "--permission-mode", "bypass", "mcp__g__spawn_and_exit", "{}"]);
    const done = finished(child);
    const pid = Number(await waitFor(() => read(serverPid), "the server to start its grandchild"));
    // The server is gone; its grandchild ignores SIGTERM, so stopping the group takes a grace period: kill -9 the CLI in it.
    await waitFor(() => !processesWith(marker).some((x) => x.pid === pid), "the server to exit");
    expect(processesWith(marker)).toHaveLength(1);
    child.kill("SIGKILL");
    expect((await done).signal).toBe("SIGKILL");
    await expectNoneLeft(marker);
  });

  it("during the handshake, with a server that ignores stdin EOF and SIGTERM", async () => {
    const marker = mark("k9-init");
    const p = project();
    const started = path.join(p.dir, "started");
    p.write(".mcp.json", { mcpServers: { stuck: { ...fixture("ignore-eof", "--marker", marker), env: { STARTED_FILE: started } } } });
    const child = startAgent(p, ["call", "--permission-mode", "bypass", "mcp__stuck__anything", "{}"]);
    const done = finished(child);
    await waitFor(() => read(started), "the server to start");
    expect(processesWith(marker)).toHaveLength(1);
    child.kill("SIGKILL");
    expect((await done).signal).toBe("SIGKILL");
    await expectNoneLeft(marker);
  });
});

describe("SIGTERM to agent call", () => {
  it("mid-call: the request is cancelled on the server, the call audited as aborted", async () => {
    const marker = mark("term-call");
    const p = project();
    const record = path.join(p.dir, "record.jsonl");
    p.write(".mcp.json", { mcpServers: { rec: { ...fixture("records-cancel", "--marker", marker), env: { RECORD_FILE: record } } } });
    const child = startAgent(p, ["call", "--permission-mode", "bypass", "mcp__rec__wait", "{}"]);
    const done = finished(child);
    const first = JSON.parse(await waitFor(() => read(record).split("\n")[0], "the call to start")) as { started: number };
    child.kill("SIGTERM");
    const r = await done;
    expect(r.code).toBe(143);
    await expectNoneLeft(marker);
    const lines = read(record).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    // Cancelled first, then told to stop (stdin closed).
    expect(lines[1]).toMatchObject({ cancelled: { requestId: first.started, reason: expect.any(String) } });
    expect(lines.findIndex((l) => l.eof)).toBeGreaterThan(1);
    const calls = read(path.join(p.dir, ".agent", "audit.jsonl"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { kind: string; name: string; outcome: string })
      .filter((a) => a.kind === "call");
    expect(calls).toMatchObject([{ name: "mcp__rec__wait", outcome: "aborted" }]);
  });

  it("during the handshake: the server is stopped in order (stdin closed, SIGTERM, SIGKILL)", async () => {
    const marker = mark("term-init");
    const p = project();
    const started = path.join(p.dir, "started");
    const record = path.join(p.dir, "record");
    p.write(".mcp.json", { mcpServers: { stuck: { ...fixture("ignore-eof", "--marker", marker), env: { STARTED_FILE: started, RECORD_FILE: record } } } });
    const child = startAgent(p, ["call", "--permission-mode", "bypass", "mcp__stuck__anything", "{}"]);
    const done = finished(child);
    await waitFor(() => read(started), "the server to start");
    child.kill("SIGTERM");
    expect((await done).code).toBe(143);
    await expectNoneLeft(marker);
    expect(read(record).trim().split("\n")).toEqual(["eof", "sigterm"]);
  });
});
