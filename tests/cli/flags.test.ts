/**
 * The flags a Claude Code user types: `agent -p`, `--allowedTools` / `--disallowedTools` (Claude Code's
 * names through aliases), `--append-system-prompt`, `--add-dir`, model aliases, and argument errors
 * that read like the rest of the CLI. The built CLI against the fake model servers.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { startFake, systemOf, toolResults, type FakeServer, type Kind, type Turn } from "../core/loop-helpers.js";
import { assertBuilt, cleanEnv, makeProject, runCli, type Project } from "./run-helpers.js";

beforeAll(assertBuilt);

let srv: FakeServer | undefined;
let project: Project | undefined;
afterEach(async () => {
  await srv?.close();
  await project?.remove();
  srv = project = undefined;
});

async function setup(script: Turn[], config: Record<string, unknown> = {}, kind: Kind = "openai") {
  srv = await startFake(kind, script);
  project = await makeProject({ model: `${kind}:gpt-fake`, providers: { [kind]: { baseURL: srv.baseURL, apiKey: "test-key" } }, ...config });
  return { srv, dir: project.dir, env: cleanEnv({}, project.dir) };
}

const run = (args: string[], s: { dir: string; env: NodeJS.ProcessEnv }, input?: string) => runCli(args, { cwd: s.dir, env: s.env, input });
const COMMAND = (command: string): Turn[] => [{ toolCalls: [{ id: "c1", name: "run_command", arguments: { command } }] }, "Done."];

describe("agent -p", () => {
  test('agent -p "..." is agent run -p, with run\'s options after it', async () => {
    const s = await setup(["Hi from the model."]);
    const r = await run(["-p", "Say hi", "--output-format", "json"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, result: "Hi from the model." });
    expect(s.srv.requests[0].body.messages.at(-1)).toEqual({ role: "user", content: "Say hi" });
  });

  test("as in Claude Code, -p / --print is a switch: the prompt may follow the options, or come on stdin", async () => {
    const s = await setup(["One.", "Two."]);
    expect((await run(["--print", "--output-format", "text", "Summarise", "this"], s)).stdout).toBe("One.\n");
    expect((await run(["-p"], s, "from stdin\n")).stdout).toBe("Two.\n");
    expect(s.srv.requests.map((r) => r.body.messages.at(-1).content)).toEqual(["Summarise this", "from stdin\n"]);
  });
});

describe("--allowedTools / --disallowedTools", () => {
  test("allows a rule for this run only, in Claude Code's names (Bash(echo:*)), several at once", async () => {
    const s = await setup([...COMMAND("echo allowed"), ...COMMAND("echo again")]);
    const r = await run(["-p", "go", "--allowedTools", "Bash(echo:*)", "Read"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(toolResults("openai", s.srv.requests[1])[0].content).toContain("allowed");
    // Without the flag, headless, it is denied: the rule was for that run only.
    await run(["-p", "go"], s);
    expect(toolResults("openai", s.srv.requests[3])[0].content).toContain("Permission denied");
  });

  test("denies whatever else allows it (bypass mode), comma-separated lists work", async () => {
    const s = await setup(COMMAND("rm -rf build"));
    const r = await run(["--permission-mode", "bypass", "--disallowedTools", "Bash(rm:*),Write", "-p", "clean"], s);
    expect(r.code).toBe(0);
    expect(toolResults("openai", s.srv.requests[1])[0].content).toContain('matches the deny rule "Bash(rm:*)"');
  });

  test("agent config shows the rules given on the command line; a bad rule is a usage error naming the flag", async () => {
    const s = await setup([]);
    const c = await run(["config", "--json", "--allowedTools", "Read", "--disallowed-tools", "Bash(rm:*)"], s);
    expect(JSON.parse(c.stdout).config.permissions).toMatchObject({ allow: ["Read"], deny: ["Bash(rm:*)"] });
    const bad = await run(["-p", "x", "--allowedTools", "Bash(rm:*"], s);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('agent: --allowedTools: "Bash(rm:*" is not a rule: the pattern must end the rule with a )');
    const none = await run(["-p", "x", "--allowedTools"], s);
    expect(none).toMatchObject({ code: 2 });
    expect(none.stderr).toContain("--allowedTools needs rules");
    const nothing = await run(["tools", "--allowedTools", "Fetch"], s);
    expect(nothing.stderr).toContain('--allowedTools "Fetch" names no registered tool, so it allows nothing');
  });
});

describe("--append-system-prompt, --add-dir, model aliases", () => {
  test("--append-system-prompt ends the system prompt (after the default and AGENTS.md)", async () => {
    const s = await setup(["ok"]);
    writeFileSync(path.join(s.dir, "AGENTS.md"), "Project rules here.\n");
    expect((await run(["-p", "x", "--append-system-prompt", "Answer in French."], s)).code).toBe(0);
    const system = systemOf("openai", s.srv.requests[0]);
    expect(system).toContain("Project rules here.");
    expect(system.slice(-40)).toMatch(/\n\nAnswer in French\.$/);
  });

  test("--add-dir makes another folder part of the workspace for this run; a missing one is a usage error", async () => {
    const s = await setup([]);
    const other = path.join(path.dirname(s.dir), `${path.basename(s.dir)}-lib`);
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, "lib.txt"), "library text\n");
    // The model asks for the file by its absolute path (the script is fixed before the folder exists).
    const script = [{ toolCalls: [{ id: "r1", name: "read_file", arguments: { path: path.join(other, "lib.txt") } }] }, "Read it.", { toolCalls: [{ id: "r2", name: "read_file", arguments: { path: path.join(other, "lib.txt") } }] }, "No."];
    await srv!.close();
    srv = await startFake("openai", script);
    writeFileSync(path.join(s.dir, ".agentrc.json"), JSON.stringify({ plugins: ["./tools.mjs"], model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } }));
    expect((await run(["-p", "read it", "--add-dir", other], s)).code).toBe(0);
    expect(toolResults("openai", srv.requests[1])[0].content).toContain("library text");
    await run(["-p", "read it"], s);
    expect(toolResults("openai", srv.requests[3])[0].content).toContain("is outside the workspace");
    const missing = await run(["-p", "x", "--add-dir", "no-such-folder"], s);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--add-dir no-such-folder: no such folder");
  });

  test("built-in aliases (sonnet) and config modelAliases stand for provider:model; an unknown one is named", async () => {
    const s = await setup(["Hello from Sonnet."], {}, "anthropic");
    const r = await run(["-p", "hi", "--model", "sonnet", "--output-format", "json"], s);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).model).toBe("anthropic:claude-sonnet-5-5");
    expect(s.srv.requests[0].body.model).toBe("claude-sonnet-5-5");
    writeFileSync(path.join(s.dir, ".agentrc.json"), JSON.stringify({ plugins: ["./tools.mjs"], model: "fast", modelAliases: { fast: "anthropic:my-fast-model" }, providers: { anthropic: { baseURL: s.srv.baseURL, apiKey: "k" } } }));
    await run(["-p", "hi"], s);
    expect(s.srv.requests[1].body.model).toBe("my-fast-model");
    const typo = await run(["-p", "hi", "--model", "sonet"], s);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Unknown model: "sonet" is neither provider:model');
    expect(typo.stderr).toContain('did you mean "sonnet"?');
  });
});

describe("argument errors read like the rest of the CLI", () => {
  test.each([
    [["run", "-p", "-x"], '-p needs a value (agent run); for a value that starts with "-", write --prompt=-… or -p-….'],
    [["audit", "--json=yes"], "--json takes no value (agent audit); write just --json."],
    [["-p", "hi", "--modle", "x"], "unknown option --modle for agent run. Did you mean --model?"],
    [["--permision-mode", "plan"], "unknown option --permision-mode for agent. Did you mean --permission-mode?"],
    [["run", "--max-turns"], "--max-turns needs a value (agent run)."],
  ])("agent %j", async (args, message) => {
    const s = await setup([]);
    const r = await run(args, s);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    // Never Node's own wording (with its unbalanced quote), never a stack.
    expect(r.stderr).not.toMatch(/ambiguous|Did you forget|place it at the end|    at /);
  });
});
