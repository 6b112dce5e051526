/**
 * A trusted folder's Markdown command applies its allowed-tools for its turn, headless too (as Claude Code
 * does): only while that command's run lasts, only as the command was when the folder was trusted, never
 * in an untrusted folder, and never over a deny rule.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeOpenAI } from "../fixtures/models/fake-openai.mjs";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/project.js";

let model: Awaited<ReturnType<typeof startFakeOpenAI>>;
beforeAll(async () => {
  // Every run: the model asks for `echo granted`, then answers.
  model = await startFakeOpenAI([{ toolCalls: [{ id: "e1", name: "run_command", arguments: { command: "echo granted" } }] }, { text: "done" }], { loop: true });
});
afterAll(async () => model?.close());

function project(): { dir: string; home: string } {
  const dir = tempDir("agent-grant-");
  const home = tempDir("agent-grant-home-");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "p", private: true }));
  mkdirSync(path.join(dir, ".claude", "commands"), { recursive: true });
  writeFileSync(path.join(dir, ".claude", "commands", "greet.md"), "---\nallowed-tools: Bash(echo:*)\n---\nGreet.\n");
  writeFileSync(path.join(home, "config.json"), JSON.stringify({ model: "openai:gpt-test", providers: { openai: { baseURL: model.baseURL, apiKey: "sk-test" } } }));
  return { dir, home };
}

const run = (args: string[], p: { dir: string; home: string }, env: Record<string, string | undefined> = { AGENT_TRUST: undefined }) =>
  runCli(args, { cwd: p.dir, configHome: p.home, env, timeoutMs: 60_000 });

/** Outcomes of the run_command calls in the audit log, in order. */
function echoOutcomes(dir: string): string[] {
  const lines = readFileSync(path.join(dir, ".agent", "audit.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return lines.filter((r) => r.name === "run_command" && typeof r.outcome === "string" && r.kind === "call").map((r) => String(r.outcome));
}

it("trusted: the command's allowed-tools apply for its run, headless; a plain prompt gets the usual rules", async () => {
  const p = project();
  expect((await run(["trust"], p)).code).toBe(0);
  const cmd = await run(["-p", "/greet"], p);
  expect(cmd.code, cmd.stderr).toBe(0);
  const plain = await run(["-p", "hello"], p);
  expect(plain.code).toBe(0);
  expect(echoOutcomes(p.dir)).toEqual(["ok", "denied"]);
}, 60_000);

it("untrusted, changed since the decision, or against a deny rule: not granted", async () => {
  const untrusted = project();
  await run(["-p", "/greet"], untrusted);
  expect(echoOutcomes(untrusted.dir)).toEqual(["denied"]);

  const changed = project();
  expect((await run(["trust"], changed)).code).toBe(0);
  writeFileSync(path.join(changed.dir, ".claude", "commands", "greet.md"), "---\nallowed-tools: Bash\n---\nGreet.\n");
  const r = await run(["-p", "/greet"], changed);
  expect(r.stderr).toContain("command allowed-tools /greet");
  expect(echoOutcomes(changed.dir)).toEqual(["denied"]);

  const denied = project();
  writeFileSync(path.join(denied.dir, ".agentrc.json"), JSON.stringify({ permissions: { deny: ["Bash(echo:*)"] } }));
  expect((await run(["trust"], denied)).code).toBe(0);
  await run(["-p", "/greet"], denied);
  expect(echoOutcomes(denied.dir)).toEqual(["denied"]);
}, 90_000);
