/**
 * "Always for this project" rules: written to a file and read back, each must allow exactly the call
 * that was shown, nothing broader (glob characters escaped, paths anchored), or not be offered at all.
 */
import { describe, expect, it } from "vitest";
import { projectRules } from "../../kit/rules/exact-rules.js";
import { PermissionRuleSchema } from "../../core/config/config-schema.js";
import { decide } from "../helpers/decide.js";
import { compileRules } from "../../kit/rules/parse.js";

const allows = (rules: string[], tool: string, subjects: string[], kind: "path" | "text") =>
  decide(compileRules({ allow: rules }), "default", tool, "execute", subjects, kind).decision === "allow";

describe("projectRules", () => {
  it.each([
    // subject, the rule written, subjects it must not allow
    ["npm test", "run_command(npm test)", ["npm test -- --watch", "npm testing"]],
    ["rm *.txt", "run_command(rm \\*.txt)", ["rm -rf / x.txt", "rm a.txt"]],
    ["ls a?b", "run_command(ls a\\?b)", ["ls axb"]],
    ["./run.sh --fast", "run_command(\\./run.sh --fast)", ["run.sh --fast"]],
    ["git log --format=%h:*", "run_command(git log --format=%h:\\*)", ["git log --format=%h:x", "git log --format=%h"]],
    ["echo (a)", "run_command(echo \\(a\\))", ["echo a"]],
    ["echo (a) | grep (b)", "run_command(echo \\(a\\) \\| grep \\(b\\))", ["echo (a) ", " grep (b)", "echo a | grep b"]],
    ["seq a{2}", "run_command(seq a\\{2\\})", ["seq aa", "seq a"]],
    ["echo $HOME", "run_command(echo \\$HOME)", ["echo HOME"]],
  ])("text %j → %s", (subject, rule, not) => {
    const rules = projectRules("run_command", [subject], "text");
    expect(rules).toEqual([rule]);
    expect(PermissionRuleSchema.safeParse(rule).success).toBe(true);
    expect(allows(rules, "run_command", [subject], "text")).toBe(true);
    for (const other of not) expect(allows(rules, "run_command", [other], "text"), other).toBe(false);
  });

  it.each([
    ["a.ts", "write_file(/a.ts)", ["src/a.ts", "b.ts"]],
    ["src/[id].ts", "write_file(/src/\\[id\\].ts)", ["src/i.ts", "src/d.ts"]],
    ["docs/*.md", "write_file(/docs/\\*.md)", ["docs/x.md"]],
    ["/abs/outside/x.txt", "write_file(//abs/outside/x.txt)", ["/abs/outside/y.txt", "abs/outside/x.txt"]],
  ])("path %j → %s", (subject, rule, not) => {
    const rules = projectRules("write_file", [subject], "path");
    expect(rules).toEqual([rule]);
    expect(allows(rules, "write_file", [subject], "path")).toBe(true);
    for (const other of not) expect(allows(rules, "write_file", [other], "path"), other).toBe(false);
  });

  it("one rule per part of a compound command; none when any part cannot be written exactly", () => {
    expect(projectRules("run_command", ["npm test", "rm -rf build"], "text")).toEqual(["run_command(npm test)", "run_command(rm -rf build)"]);
    expect(projectRules("run_command", ["npm test", "\u0000$(whoami)"], "text")).toEqual([]);
    expect(projectRules("run_command", ["echo a\\ b"], "text")).toEqual([]);
    expect(projectRules("run_command", ["echo )"], "text")).toEqual([]);
    expect(projectRules("write_file", ["."], "path")).toEqual([]);
    expect(projectRules("mcp__x__y", undefined, "text")).toEqual(["mcp__x__y"]);
  });
});
