/** CLI subcommands a plugin contributes, through the built CLI: parsed, helped, dispatched, kept apart from the built-ins. */
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { runCli } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

const project = () => tempProject({ ".agentrc.json": { plugins: [path.join(REPO_ROOT, "tests/fixtures/plugins/cli-command.mjs")] } });
const agent = (p: ReturnType<typeof project>, args: string[]) => runCli(args, { cwd: p.dir, configHome: p.configHome });

describe.concurrent("a plugin's CLI command", () => {
  test("runs with its options typed and parsed, and gets the host as plugins see it", async () => {
    const r = await agent(project(), ["hello", "--name", "ann", "--loud"]);
    expect(r.stderr).toContain('agent: plugin clitool\'s command "tools" was ignored: a built-in command has that name.');
    expect(r.stdout).toMatch(/^HELLO ANN \(\d+ TOOLS, MODE DEFAULT, CAN SET MODE: FALSE\)\n$/);
    expect(r.code).toBe(0);
  });

  test("its exit code is the CLI's; a usage error is exit 2", async () => {
    const p = project();
    expect((await agent(p, ["hello", "extra"])).code).toBe(4);
    const formal = await agent(p, ["greet", "formal"]);
    expect(formal).toMatchObject({ code: 2, stderr: expect.stringContaining("agent: formal greetings need a name") });
  });

  test("an unknown flag is named with the closest one; --help is generated", async () => {
    const p = project();
    const bad = await agent(p, ["hello", "--nam", "x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option --nam for agent hello. Did you mean --name?");
    const help = await agent(p, ["hello", "--help"]);
    expect(help.stdout).toContain("Usage: agent hello [--name <who>] [--loud]");
    expect(help.stdout).toContain("--name <value>  who to greet");
    const sub = await agent(p, ["greet", "--help"]);
    expect(sub.stdout).toMatch(/Commands:\n\s+formal\s+a formal greeting/);
  });

  test("agent --help lists it with its plugin; the built-in keeps its name", async () => {
    const p = project();
    const help = await agent(p, ["--help"]);
    expect(help.stdout).toMatch(/^\s+hello\s+say hello from a plugin \(plugin clitool\)$/m);
    const tools = await agent(p, ["tools"]);
    expect(tools.stdout).not.toContain("plugin tools ran");
    expect(tools.stdout).toContain("read_file");
  });

  test("an unknown command suggests the closest, plugin commands included", async () => {
    const r = await agent(project(), ["helo"]);
    expect(r).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "helo". Did you mean "hello"?') });
  });
});
