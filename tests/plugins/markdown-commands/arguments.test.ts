/** Arguments: Claude Code's dialect under .claude/commands, ours under .agent/commands, always literal. */
import { existsSync } from "node:fs";
import { expect, test } from "vitest";
import { splitArguments } from "../../../plugins/markdown-commands/arguments.js";
import { md, mdHost, useMdHosts } from "./_helpers.js";

useMdHosts();

const BODY = "all=[$ARGUMENTS] zero=[$0] one=[$1] two=[$2] idx0=[$ARGUMENTS[0]] idx1=[$ARGUMENTS[1]]";

test("the same body in the .claude dialect (0-based) and the .agent dialect (1-based)", async () => {
  const t = await mdHost({ ".claude/commands/c.md": md(BODY), ".agent/commands/a.md": md(BODY) });
  expect((await t.run(`/c "a b" c`)).prompt).toBe(`all=["a b" c] zero=[a b] one=[c] two=[] idx0=[a b] idx1=[c]`);
  expect((await t.run(`/a "a b" c`)).prompt).toBe(`all=["a b" c] zero=[$0] one=[a b] two=[c] idx0=[$ARGUMENTS[0]] idx1=[$ARGUMENTS[1]]`);
});

test("no arguments: placeholders are empty and nothing is appended", async () => {
  const t = await mdHost({ ".claude/commands/c.md": md("Fix [$ARGUMENTS] [$0]"), ".agent/commands/a.md": md("Fix [$ARGUMENTS] [$1]"), ".agent/commands/plain.md": md("Plain") });
  expect((await t.run("/c")).prompt).toBe("Fix [] []");
  expect((await t.run("/a")).prompt).toBe("Fix [] []");
  expect((await t.run("/plain")).prompt).toBe("Plain");
});

test("a body with no placeholder gets the arguments appended, as Claude Code does", async () => {
  const t = await mdHost({ ".claude/commands/c.md": md("Review the code."), ".agent/commands/a.md": md("Review the code.") });
  expect((await t.run("/c src/x.ts")).prompt).toBe("Review the code.\n\nARGUMENTS: src/x.ts");
  expect((await t.run("/a src/x.ts")).prompt).toBe("Review the code.\n\nARGUMENTS: src/x.ts");
});

test("quoting groups words, and #12 is an argument, not a comment", async () => {
  const t = await mdHost({ ".agent/commands/q.md": md("1=[$1] 2=[$2] 3=[$3] 4=[$4]") });
  expect((await t.run(`/q 'it is' "a \\"b\\"" c\\ d e`)).prompt).toBe(`1=[it is] 2=[a "b"] 3=[c d] 4=[e]`);
  expect((await t.run("/q fix #12 now")).prompt).toBe("1=[fix] 2=[#12] 3=[now] 4=[]");
  expect(splitArguments(`*.ts a;b $HOME "$X" x|y`)).toEqual(["*.ts", "a", ";", "b", "$HOME", "$X", "x", "|", "y"]);
});

test("named arguments from frontmatter, and ${CLAUDE_SESSION_ID} in the .claude dialect only", async () => {
  const t = await mdHost({
    ".claude/commands/cfix.md": md("Fix $issue on $branch-name ($issue-x) [$issues] in ${CLAUDE_SESSION_ID}", { arguments: "[issue, branch]" }),
    ".agent/commands/afix.md": md("Fix $issue on $branch [$3] in ${CLAUDE_SESSION_ID}", { arguments: "issue branch" }),
  });
  expect((await t.run("/cfix 42 main")).prompt).toBe(`Fix 42 on main-name (42-x) [$issues] in ${t.host.sessionId}`);
  expect((await t.run("/afix 42 main")).prompt).toBe("Fix 42 on main [] in ${CLAUDE_SESSION_ID}");
});

test("special characters in the arguments are inserted literally, never expanded or run", async () => {
  const body = "Got: $ARGUMENTS | first: $1";
  const t = await mdHost({ ".agent/commands/lit.md": md(body), ".claude/commands/lit2.md": md("Got: $ARGUMENTS | first: $0"), "secret.txt": "TOPSECRET\n" }, {
    config: { permissions: { allow: ["run_command", "read_file"] } },
  });
  const args = "!`touch pwned.txt` @secret.txt $2 $ARGUMENTS `touch pwned2.txt` \"q\" 'single' $HOME a@b.c\nsecond line";
  const { prompt } = await t.run(`/lit ${args}`);
  expect(prompt).toBe(`Got: ${args} | first: !\`touch`);
  const { prompt: p2 } = await t.run(`/lit2 ${args}`);
  expect(p2).toBe(`Got: ${args} | first: !\`touch`);
  expect(prompt).not.toContain("TOPSECRET");
  expect(existsSync(t.project.path("pwned.txt"))).toBe(false);
  expect(existsSync(t.project.path("pwned2.txt"))).toBe(false);
  expect(t.audit().filter((r) => r.kind === "call")).toEqual([]);
});
