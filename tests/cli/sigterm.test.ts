/**
 * SIGTERM always ends the built CLI, whatever a plugin does: a tool that ignores its signal and never
 * settles, from a plugin that installed SIGTERM and SIGINT listeners of its own to swallow them; a
 * tool whose abort listener then loops synchronously (a second SIGTERM ends the process at once:
 * after the first, signals have their default action again); and a plugin whose shutdown floods the
 * microtask queue, so no timer ever fires, the CLI's 5 s bound included (a watchdog thread sends the
 * signal again).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { cleanEnv } from "../helpers/cli.js";
import { assertBuilt, DIST_CLI } from "../helpers/paths.js";
import { cleanupTemp, tempProject, type TempProject } from "../helpers/project.js";

const running: ChildProcess[] = [];
afterEach(() => {
  for (const c of running.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});
afterAll(cleanupTemp);

const PLUGIN = `
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
export default {
  name: "stubborn",
  setup(ctx) {
    // Hostile: SIGTERM and SIGINT swallowed, for as long as the process lives.
    process.on("SIGTERM", () => {});
    process.on("SIGINT", () => {});
    const mark = (name) => writeFileSync(path.join(ctx.workspace.root, name), String(process.pid));
    const tool = (name, onAbort) => ctx.tools.add({
      name, description: name, risk: "read", inputSchema: { type: "object", properties: {} },
      // Never settles, never looks at its signal.
      run: (_args, call) => {
        if (onAbort) call.onAbort(onAbort);
        mark("started");
        return new Promise(() => {});
      },
    });
    tool("hang");
    tool("spin_on_abort", () => { mark("spinning"); for (;;) {} });
  },
  // Asked to (a file says so), the host's close floods the microtask queue and never settles.
  shutdown() {
    if (!existsSync(path.join(process.cwd(), "flood-on-shutdown"))) return;
    writeFileSync(path.join(process.cwd(), "flooding"), "");
    const flood = () => Promise.resolve().then(flood);
    flood();
    return new Promise(() => {});
  },
};
`;

function project(): TempProject {
  const p = tempProject();
  writeFileSync(p.path("stubborn.mjs"), PLUGIN);
  writeFileSync(p.path(".agentrc.json"), JSON.stringify({ plugins: ["./stubborn.mjs"] }));
  return p;
}

function start(p: TempProject, tool: string): { child: ChildProcess; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> } {
  assertBuilt();
  const child = spawn(process.execPath, [DIST_CLI, "call", tool, "{}"], { cwd: p.dir, env: cleanEnv({ AGENT_CONFIG_HOME: p.configHome }), stdio: ["ignore", "pipe", "pipe"] });
  running.push(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stderr })));
  return { child, exited };
}

async function waitFor(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Ended by SIGTERM: by the CLI's own exit (143), or by the signal's default action. */
const byTerm = (r: { code: number | null; signal: NodeJS.Signals | null }) => r.code === 143 || r.signal === "SIGTERM";

describe("SIGTERM during a plugin tool that never settles", () => {
  test("one SIGTERM: the call is cancelled and audited as aborted, the host closes, exit 143 (the plugin's own listener changes nothing)", async () => {
    const p = project();
    const { child, exited } = start(p, "hang");
    await waitFor("the tool to start", () => existsSync(p.path("started")));
    child.kill("SIGTERM");
    const r = await exited;
    expect(r.code, r.stderr).toBe(143);
    const calls = readFileSync(p.auditFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { kind: string; name: string; outcome: string });
    expect(calls.filter((c) => c.kind === "call" && c.name === "hang").map((c) => c.outcome)).toEqual(["aborted"]);
  });

  test("its abort listener loops synchronously, so the first SIGTERM's close never runs: a second SIGTERM ends the process", async () => {
    const p = project();
    const { child, exited } = start(p, "spin_on_abort");
    await waitFor("the tool to start", () => existsSync(p.path("started")));
    child.kill("SIGTERM");
    // The first signal was handled (the listener runs from its handler) and the event loop is stuck now.
    await waitFor("the abort listener to spin", () => existsSync(p.path("spinning")));
    child.kill("SIGTERM");
    const r = await exited;
    expect(byTerm(r), `exited ${r.code} ${r.signal}: ${r.stderr}`).toBe(true);
  });

  test("the host's close floods the microtask queue (a plugin's shutdown), so no timer fires again, the 5 s bound included: with no second signal, the process still ends", async () => {
    const p = project();
    writeFileSync(p.path("flood-on-shutdown"), "");
    const { child, exited } = start(p, "hang");
    await waitFor("the tool to start", () => existsSync(p.path("started")));
    child.kill("SIGTERM");
    await waitFor("the shutdown to flood", () => existsSync(p.path("flooding")));
    const r = await exited;
    expect(byTerm(r), `exited ${r.code} ${r.signal}: ${r.stderr}`).toBe(true);
  });
});
