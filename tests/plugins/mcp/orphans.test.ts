/**
 * No orphans: whatever way `agent` ends (normal exit, Ctrl-C, SIGTERM, an uncaught error), every
 * stdio server it started is gone, with the server's own children. One server runs under a shell
 * that also starts a helper in the background (as wrappers and servers with worker processes do):
 * the helper ignores stdin, so only stopping the whole process group gets rid of it.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { userMcpLog } from "../../helpers/project.js";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, DEMO_SERVER, FIXTURES, waitFor } from "./_helpers.js";
import { finished, processesWith, project, startAgent, type Project } from "./_cli.js";

afterAll(cleanup);

/** A project with two stdio servers whose command lines carry `marker`: one wrapped by sh (with a helper), one plain. */
function serversProject(marker: string, extra: Record<string, string | object> = {}): Project {
  const helper = `${process.execPath} -e "setInterval(() => {}, 1000)" ${marker} &`;
  const wrapped = `${helper} ${process.execPath} ${path.join(FIXTURES, "slow-tool.mjs")} --marker ${marker}; echo "slow-tool ended"`;
  return project({
    ".mcp.json": {
      mcpServers: {
        slow: { command: "sh", args: ["-c", wrapped] },
        demo: { command: process.execPath, args: [DEMO_SERVER, "--marker", marker] },
      },
    },
    ...extra,
  });
}

function connected(p: Project, server: string): boolean {
  try {
    // `agent call` sets up before its audit log makes .agent/: the log is in the user's state folder.
    return /connected over stdio/.test(readFileSync(userMcpLog(p.dir, server), "utf8"));
  } catch {
    return false;
  }
}

async function expectNoneLeft(marker: string): Promise<void> {
  await waitFor(() => processesWith(marker).length === 0, `every server process with ${marker} to be gone`, 5000).catch(() => {});
  expect(processesWith(marker)).toEqual([]);
}

describe("no orphans", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)("%s while a call runs stops every server and its children", async (signal, exitCode) => {
    const marker = `orphan-${randomUUID()}`;
    const p = serversProject(marker);
    const child = startAgent(p, ["call", "--permission-mode", "bypass", "mcp__slow__slow", '{"ms":60000}']);
    const done = finished(child);
    await waitFor(() => connected(p, "slow"), "the slow server to connect");
    expect(child.exitCode).toBe(null);
    // sh, its background helper and the slow-tool server: the demo server is not needed, so never started.
    expect(processesWith(marker).length).toBe(3);
    expect(connected(p, "demo")).toBe(false);
    child.kill(signal);
    const r = await done;
    expect(r.code).toBe(exitCode);
    await expectNoneLeft(marker);
  });

  it("on a normal exit", async () => {
    const marker = `orphan-${randomUUID()}`;
    const p = serversProject(marker);
    const r = await finished(startAgent(p, ["call", "--permission-mode", "bypass", "mcp__demo__echo", '{"text":"bye"}']));
    expect(r).toMatchObject({ code: 0, stdout: "bye\n" });
    await expectNoneLeft(marker);
  });

  it("when a plugin calls process.exit mid-call (the exit handler is the last line of defence)", async () => {
    const marker = `orphan-${randomUUID()}`;
    const p = serversProject(marker, {
      "agent.config.mjs": `export default { plugins: [{ name: "bomb", event(e) { if (e.type === "tool_start") setTimeout(() => process.exit(7), 100); } }] };\n`,
    });
    const r = await finished(startAgent(p, ["call", "--permission-mode", "bypass", "mcp__slow__slow", '{"ms":60000}']));
    expect(r.code).toBe(7);
    await expectNoneLeft(marker);
  });

  it("a plugin's stray error is reported, the call finishes, and nothing is left", async () => {
    const marker = `orphan-${randomUUID()}`;
    const p = serversProject(marker, {
      "agent.config.mjs": `export default { plugins: [{ name: "bomb", event(e) { if (e.type === "tool_start") { setTimeout(() => { throw new Error("boom from a plugin timer"); }, 50); Promise.reject(new Error("a stray rejection")); } } }] };\n`,
    });
    const r = await finished(startAgent(p, ["call", "--permission-mode", "bypass", "mcp__slow__slow", '{"ms":400}']));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("agent: plugin code left an error nobody handled: boom from a plugin timer");
    expect(r.stderr).toContain("agent: plugin code left an error nobody handled: a stray rejection");
    expect(r.stderr).not.toMatch(/^\s+at /m);
    await expectNoneLeft(marker);
  });
});
