/**
 * Walks of a tool call enter no file twice (issue 21). A stack is captured at every deep point of real
 * calls — inside the tool's run, its validator, `permissionSubject`, `writes` and abort listener, inside
 * `permission`, `permissionRequest`, `beforeToolCall`, `afterToolCall` and `event` handlers (plugin-object
 * methods and taps made in setup), inside the permission asker, an event listener and the audit sink's
 * `append` — on three paths: `agent run` (the CLI's `main`, in this process, against the fake model
 * server), the embedding's `host.run`, and `host.tools.call` straight into the gate. Each stack, read as
 * the files it passes through (tests/helpers/call-walk.ts), must not leave a file and come back into it:
 * A → B → A means B calls back into A, and the step is split across the two.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { defineTool, type Plugin } from "../../core/index.js";
import { main } from "../../cli/main.js";
import { callWalk, reentries } from "../helpers/call-walk.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";
import { openHost, startFake, tempDir } from "../core/loop-helpers.js";

afterAll(async () => {
  await closeHosts();
  cleanupTemp();
});

Error.stackTraceLimit = Infinity;

/** Stacks captured while a walk is on, by the deep point they were captured at. */
const captured: { point: string; stack: string }[] = [];
let walking = false;
const capture = (point: string) => {
  if (walking) captured.push({ point, stack: new Error(point).stack ?? "" });
};

/** Run `calls` with capturing on; the walks of what was captured (each deep point at least once). */
async function walks(calls: () => Promise<unknown>): Promise<{ point: string; walk: string[] }[]> {
  captured.length = 0;
  walking = true;
  try {
    await calls();
  } finally {
    walking = false;
  }
  return captured.map(({ point, stack }) => ({ point, walk: callWalk(stack, REPO_ROOT) }));
}

/** Every walk that enters a file twice, drawn; a label says where it was captured. */
function violations(found: { point: string; walk: string[] }[]): string[] {
  return [...new Set(found.flatMap(({ point, walk }) => reentries(walk).map((r) => `${point}: ${r}`)))];
}

const probe = defineTool({
  name: "probe",
  description: "A tool whose every callback captures its stack",
  risk: "write",
  input: z.object({ x: z.string().refine(() => (capture("validator"), true)) }),
  permissionSubject: (input) => (capture("permissionSubject"), input.x),
  writes: () => (capture("writes"), []),
  run: async ({ x }, ctx) => {
    capture("run");
    if (x === "stall") {
      // Stopped by its timeout: the abort listener is a deep point too.
      ctx.onAbort(() => capture("onAbort"));
      return new Promise<string>(() => {});
    }
    return x === "big" ? "y".repeat(4096) : `ran ${x}`;
  },
  timeoutMs: 100,
  maxOutputBytes: 1024,
});

const inputX = (input: unknown) => (input as { x?: string }).x;

/** Hooks as a plugin object's methods: a rewrite at each step that may rewrite, so the re-decisions are walked too. */
const methods: Plugin = {
  name: "walk-methods",
  permission: (c) => {
    capture("permission");
    return inputX(c.input) === "rewrite" ? { input: { x: "asked" } } : undefined;
  },
  permissionRequest: (q) => {
    capture("permissionRequest");
    return inputX(q.input) === "asked" ? { decision: "allow", input: { x: "answered" } } : undefined;
  },
  beforeToolCall: (c) => {
    capture("beforeToolCall");
    return inputX(c.input) === "answered" ? { input: { x: "before" } } : undefined;
  },
  afterToolCall: (r) => {
    capture("afterToolCall");
    return r;
  },
  event: (e) => void (e.type.startsWith("tool_") && capture("event")),
};

/** The same hooks tapped in setup (the handler is the plugin's function, not a method the driver calls). */
const taps: Plugin = {
  name: "walk-taps",
  setup(ctx) {
    ctx.hooks.permission.tap("walk-taps", () => void capture("permission (tap)"));
    ctx.hooks.beforeToolCall.tap("walk-taps", () => void capture("beforeToolCall (tap)"));
    ctx.hooks.afterToolCall.tap("walk-taps", () => void capture("afterToolCall (tap)"));
    ctx.hooks.event.tap({ name: "walk-taps", types: ["tool_end"] }, () => capture("event (tap)"));
  },
};

const embedding = {
  plugins: [methods, taps],
  askPermission: async () => (capture("askPermission"), "allow_once" as const),
  auditSink: () => ({ append: () => capture("audit append"), close() {} }),
};

/** The points every path reaches; the direct path reaches the abort listener too. */
const POINTS = ["validator", "permissionSubject", "writes", "run", "permission", "permissionRequest", "beforeToolCall", "afterToolCall", "event", "permission (tap)", "beforeToolCall (tap)", "afterToolCall (tap)", "event (tap)", "askPermission", "listener", "audit append"];

function expectNoReentry(found: { point: string; walk: string[] }[], points: string[], through: string[]): void {
  expect(violations(found), "walks that enter a file twice (A → B → A: B calls back into A)").toEqual([]);
  expect([...new Set(found.map((f) => f.point))].sort()).toEqual([...points].sort());
  // Real stacks: the tool's run is reached through the path under test, in order. (Elsewhere a stack may
  // begin later: V8 follows an awaited call back to its caller, not a promise chained with then().)
  for (const { point, walk } of found) if (point === "run") expect(walk.filter((f) => through.includes(f)), point).toEqual(through);
}

describe("the walk of a tool call enters no file twice", () => {
  test("host.tools.call: validation, permission (rules, votes, a question, rewrites), hooks, run, timeout, output cap, events, audit", async () => {
    const { host } = await testHost({ plugins: [{ name: "walk-tools", tools: [probe] }, ...embedding.plugins], askPermission: embedding.askPermission, auditSink: embedding.auditSink });
    host.on((e) => void (e.type.startsWith("tool_") && capture("listener")));
    const found = await walks(async () => {
      expect(await host.tools.call("probe", { x: "plain" })).toMatchObject({ ok: true, output: "ran plain" });
      expect(await host.tools.call("probe", { x: "rewrite" })).toMatchObject({ ok: true, output: "ran before" });
      expect(await host.tools.call("probe", { x: "big" })).toMatchObject({ ok: true, truncated: true });
      expect(await host.tools.call("probe", { x: "stall" })).toMatchObject({ ok: false, outcome: "timeout" });
    });
    expectNoReentry(found, [...POINTS, "onAbort"], ["core/gate/gate.ts"]);
  });

  test("host.run: the loop hands the model's tool call to the gate", async () => {
    const srv = await startFake("openai", [{ text: "", toolCalls: [{ id: "c1", name: "probe", arguments: { x: "rewrite" } }] }, { text: "done" }]);
    const t = await openHost("openai", srv, { tools: [probe], ...embedding, builtins: ["openai"] });
    try {
      t.host.on((e) => void (e.type.startsWith("tool_") && capture("listener")));
      const found = await walks(async () => expect(await t.host.run("go")).toMatchObject({ ok: true, toolCalls: 1 }));
      expectNoReentry(found, POINTS, ["core/loop/loop.ts", "core/gate/gate.ts"]);
    } finally {
      await t.close();
      await srv.close();
    }
  });

  test("agent run and agent call: the CLI's main, in this process, through the loop (run) and the gate, to the renderer", async () => {
    const srv = await startFake("openai", [{ text: "", toolCalls: [{ id: "c1", name: "probe", arguments: { x: "rewrite" } }] }, { text: "done" }]);
    const project = await tempDir("agent-walk-");
    try {
      // A plugin file in the project, as a user's would be: its callbacks capture through a global.
      (globalThis as { __captureWalk?: (point: string) => void }).__captureWalk = capture;
      await writeFile(path.join(project.dir, "walk-plugin.mjs"), CLI_PLUGIN);
      await writeFile(
        path.join(project.dir, ".agentrc.json"),
        JSON.stringify({ model: "openai:gpt-fake", plugins: ["./walk-plugin.mjs"], providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } }, permissions: { allow: ["probe"] } }),
      );
      const points = ["run", "permissionSubject", "permission", "beforeToolCall", "afterToolCall", "event"];
      // The renderer's tool line (`✓ probe …` on stderr) is a deep point too: its write is seen, and still made.
      const write = process.stderr.write;
      process.stderr.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
        if (String(chunk).includes("probe")) capture("renderer");
        return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
      } as typeof write;
      try {
        const run = await walks(async () => expect(await main(["run", "-p", "go", "--cwd", project.dir])).toBe(0));
        expectNoReentry(run, [...points, "renderer"], ["cli/main.ts", "cli/commands/run.ts", "core/loop/loop.ts", "core/gate/gate.ts"]);
      } finally {
        process.stderr.write = write;
      }
      const call = await walks(async () => expect(await main(["call", "probe", '{"x":"rewrite"}', "--cwd", project.dir])).toBe(0));
      expectNoReentry(call, points, ["cli/main.ts", "cli/commands/call.ts", "core/gate/gate.ts"]);
    } finally {
      delete (globalThis as { __captureWalk?: unknown }).__captureWalk;
      await project.remove();
      await srv.close();
    }
  });
});

/** The CLI loads plugins from files: the same probe, as plain JavaScript. */
const CLI_PLUGIN = `
const capture = (point) => globalThis.__captureWalk?.(point);
export default {
  name: "walk-cli",
  tools: [{
    name: "probe", description: "A tool whose callbacks capture their stack", risk: "write",
    inputSchema: { type: "object", properties: { x: { type: "string" } }, required: ["x"] },
    permissionSubject: (input) => (capture("permissionSubject"), input.x),
    run: ({ x }) => (capture("run"), "ran " + x),
  }],
  permission: (c) => { capture("permission"); return c.input.x === "rewrite" ? { input: { x: "voted" } } : undefined; },
  beforeToolCall: (c) => { capture("beforeToolCall"); return c.input.x === "voted" ? { input: { x: "before" } } : undefined; },
  afterToolCall: (r) => (capture("afterToolCall"), r),
  event: (e) => { if (e.type === "tool_start" || e.type === "tool_end") capture("event"); },
};
`;

describe("the walk check", () => {
  const at = (file: string, line: number) => `    at fn (${path.join(REPO_ROOT, file)}:${line}:5)`;

  test("reads a stack outermost first, one step per run of a file, without tests, node internals and node_modules", () => {
    const stack = [
      "Error: here",
      at("tests/architecture/x.test.ts", 1),
      at("core/gate/permit.ts", 20),
      at("core/gate/permit.ts", 10),
      `    at eval (eval at create (${path.join(REPO_ROOT, "node_modules/tapable/lib/HookCodeFactory.js")}:33:10), <anonymous>:9:1)`,
      `    at async Gate.run (${path.join(REPO_ROOT, "core/gate/gate.ts")}:300:7)`,
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
      `    at file://${path.join(REPO_ROOT, "cli/main.ts")}:4:2`,
      "    at /tmp/agent-walk-x/walk-plugin.mjs:3:1",
    ].join("\n");
    expect(callWalk(stack, REPO_ROOT)).toEqual(["cli/main.ts", "core/gate/gate.ts", "core/gate/permit.ts"]);
  });

  test("a walk that leaves a file and comes back (A → B → A) is caught and drawn", () => {
    const stack = ["Error", at("core/gate/gate.ts", 496), at("core/gate/permit.ts", 292), at("core/gate/gate.ts", 267), at("core/host/host.ts", 207)].join("\n");
    const walk = callWalk(stack, REPO_ROOT);
    expect(walk).toEqual(["core/host/host.ts", "core/gate/gate.ts", "core/gate/permit.ts", "core/gate/gate.ts"]);
    expect(reentries(walk)).toEqual(["core/host/host.ts → core/gate/gate.ts → core/gate/permit.ts → core/gate/gate.ts  (enters core/gate/gate.ts 2 times)"]);
    expect(reentries(["a.ts", "b.ts", "c.ts"])).toEqual([]);
  });
});
