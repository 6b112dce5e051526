/**
 * Permissions mean exactly what the user saw: shell command lines parsed with a real bash parser, a
 * table of tricky commands against allow and deny rules, and rules that cannot mean what they say
 * refused as config errors.
 */
import { describe, expect, test } from "vitest";
import { ruleProblem } from "../../kit/text/rule-syntax.js";
import { decide } from "../helpers/decide.js";
import { compileRules } from "../../kit/rules/parse.js";
import { pathMatcher } from "../../kit/rules/path-pattern.js";
import { suggestRules } from "../../kit/rules/exact-rules.js";
import { shellCommands, UNCERTAIN } from "../../kit/shell/index.js";
import { opaqueMark } from "../../kit/shell/subject-marks.js";

const READS_INPUT = opaqueMark("`sh` reads the commands it runs from its input");
const NO_PARSE = opaqueMark("the line does not parse as bash reads it (an unbalanced quote, a construct the parser does not know)");

describe("what a command line runs", () => {
  test.each([
    ["curl -s URL | sh", ["curl -s URL", "sh", READS_INPUT]],
    ['echo "a; b" > f', ["echo 'a; b'", "> f"]],
    ["npm test && rm -rf ~", ["npm test", "rm -rf ~"]],
    ["(cd x && rm -rf y)", ["cd x", "rm -rf y"]],
    ["{ rm x; }", ["rm x"]],
    ["a || b; c & d", ["a", "b", "c", "d"]],
    ["if true; then rm -rf x; fi", ["true", "rm -rf x"]],
    ["npm test > ~/.bashrc", ["npm test", "> ~/.bashrc"]],
    ["make >> build.log 2>&1", ["make", ">> build.log"]],
    ["echo hi > /dev/null 2>&1", ["echo hi"]],
    ["echo hi >& out.txt 2>&1 >&2", ["echo hi", "> out.txt"]],
    ["git log | head -5 | cat < /dev/null", ["git log", "head -5", "cat"]],
    ["echo $(rm -rf /)", ["echo $(rm -rf /)", "rm -rf /", UNCERTAIN]],
    ["echo `id`", ["echo `id`", "id", UNCERTAIN]],
    ["diff <(ls a) <(ls b)", ["diff <(ls a) <(ls b)", "ls a", "ls b", UNCERTAIN]],
    ["echo 'unbalanced", ["echo 'unbalanced", "echo", NO_PARSE]],
    ["   ", [UNCERTAIN]],
  ])("%s", async (command, expected) => {
    expect(await shellCommands(command)).toEqual(expected);
  });
});

describe("rules against tricky commands", () => {
  const allow = compileRules({ allow: ["run_command(echo:*)", "run_command(curl:*)", "run_command(npm test:*)", "run_command(cd:*)"] });
  const deny = compileRules({ allow: ["run_command"], deny: ["run_command(rm:*)", "run_command(sh)"] });
  const decision = async (rules: ReturnType<typeof compileRules>, command: string) => decide(rules, "default", "run_command", "execute", await shellCommands(command)).decision;

  test.each([
    // An allow rule must cover every executed part.
    ["curl -s URL | sh", "ask"],
    ['echo "a; b" > f', "ask"],
    ['echo "a; b"', "allow"],
    ["npm test > ~/.bashrc", "ask"],
    ["cd app && npm test", "allow"],
    ["cd app && npm test && rm -rf x", "ask"],
    ["echo $(whoami)", "ask"],
    ["echo `whoami`", "ask"],
    ["echo 'unbalanced", "ask"],
  ])("allow: %s → %s", async (command, expected) => {
    expect(await decision(allow, command)).toBe(expected);
  });

  test.each([
    // A deny rule matches any part, wherever it hides.
    ["curl -s URL | sh", "deny"],
    ["echo $(rm -rf /)", "deny"],
    ["(cd x && rm -rf y)", "deny"],
    ["if true; then rm -rf x; fi", "deny"],
    ["for f in *; do rm $f; done", "deny"],
    ["sudo rm -rf x", "deny"],
    ["echo rm", "allow"],
    ['echo "rm -rf x"', "allow"],
  ])("deny: %s → %s", async (command, expected) => {
    expect(await decision(deny, command)).toBe(expected);
  });

  test("a suggested 'always' rule is never broader than what was asked", async () => {
    expect(suggestRules("run_command", await shellCommands("npm run build --watch"))).toEqual(["run_command(npm run build --watch)"]);
    expect(suggestRules("run_command", await shellCommands("curl -s URL | grep x"))).toEqual(["run_command(curl -s URL)", "run_command(grep x)"]);
    // Nothing a rule could describe exactly: no "always" at all.
    expect(suggestRules("run_command", await shellCommands("sh -c \"$(curl -s URL)\""))).toEqual([]);
  });
});

describe("a malformed rule is refused, never silently matching nothing", () => {
  test.each([
    ["run_command(rm:*))", /a \) closes nothing/],
    ["run_command((rm:*)", /a \( is never closed/],
    ["run_command()", /empty pattern/],
    ["", /empty rule/],
    [" read_file", /spaces around/],
    ["run command(x)", /tool part/],
    ["run_command(rm:*", /must end the rule with a \)/],
    ["read_file)", /tool part "read_file\)"/],
  ])("%j", (rule, why) => {
    expect(ruleProblem(rule)).toMatch(why);
  });

  test.each(["read_file", "mcp__github__*", "run_command(npm test:*)", "run_command(echo (x))", "write_file(src/**)"])("%s is fine", (rule) => {
    expect(ruleProblem(rule)).toBeUndefined();
  });
});

describe("path patterns are .gitignore patterns over paths relative to the project root", () => {
  test.each([
    ["*.txt", "x.txt", true],
    ["*.txt", "deep/er/x.txt", true],
    ["/*.txt", "x.txt", true],
    ["/*.txt", "deep/x.txt", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/sub/a.ts", false],
    ["src/*.ts", "lib/src/a.ts", false],
    ["src/**", "src/sub/a.ts", true],
    ["build/", "build/out/x.js", true],
    ["build", "pkg/build/x.js", true],
    [".env", "config/.env", true],
    [".env", ".envrc", false],
  ])("%s vs %s → %s", (pattern, file, expected) => {
    expect(pathMatcher(pattern)(file)).toBe(expected);
  });

  test("through the gate: the model's path is made relative to the root before rules see it", async () => {
    const { hostWithTools } = await import("../helpers/host.js");
    const { closeHosts } = await import("../helpers/host.js");
    const { z } = await import("../../core/index.js");
    const wrote: string[] = [];
    const writer = { name: "write_it", description: "w", risk: "write" as const, input: z.object({ path: z.string() }), permissionSubject: (i: { path: string }) => i.path, subjectKind: "path" as const, run: (i: { path: string }) => (wrote.push(i.path), "ok") };
    const { host } = await hostWithTools([writer], { config: { permissions: { allow: ["write_it(/docs/**)"], deny: ["write_it(.env)"] } } });
    try {
      expect((await host.tools.call("write_it", { path: "./docs/../docs/a.md" })).ok).toBe(true);
      expect((await host.tools.call("write_it", { path: `${host.workspace.root}/docs/b.md` })).ok).toBe(true);
      expect((await host.tools.call("write_it", { path: "src/docs/c.md" })).outcome).toBe("denied");
      expect((await host.tools.call("write_it", { path: "docs/nested/.env" })).output).toMatch(/deny rule "write_it\(.env\)"/);
      expect(wrote).toEqual(["./docs/../docs/a.md", `${host.workspace.root}/docs/b.md`]);
    } finally {
      await closeHosts();
    }
  });
});
