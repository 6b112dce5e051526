/** `!`cmd`` and `@path` in a body go through the gate: permission rules, workspace, output cap, audit. */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { md, mdHost, useMdHosts } from "./_helpers.js";

useMdHosts();

const ECHO = { permissions: { allow: ["run_command(echo:*)"] } };

test("!`cmd` allowed by a rule runs and its output is inserted, inline and as a block", async () => {
  const t = await mdHost({ ".agent/commands/b.md": md("Branch: !`echo main` done\n\n```!\necho one\necho two\n```\nend") }, { config: ECHO });
  expect((await t.run("/b")).prompt).toBe("Branch: main done\n\none\ntwo\nend");
  const calls = t.audit().filter((r) => r.kind === "call");
  expect(calls.map((r) => [r.name, r.outcome])).toEqual([
    ["run_command", "ok"],
    ["run_command", "ok"],
  ]);
});

test("!`cmd` without a rule is denied headless: the denial is in the prompt and nothing ran", async () => {
  const t = await mdHost({ ".claude/commands/d.md": md("Before !`touch made-by-bang.txt` after") });
  const { prompt } = await t.run("/d");
  expect(prompt).toMatch(/^Before \[!`touch made-by-bang\.txt` was not run: Permission denied: run_command\(touch made-by-bang\.txt\) \(risk: execute\) needs approval and there is no terminal to ask\..*\] after$/s);
  expect(existsSync(t.project.path("made-by-bang.txt"))).toBe(false);
  expect(t.audit().filter((r) => r.kind === "call").map((r) => r.outcome)).toEqual(["denied"]);
});

test("a failing command says so; stderr is kept", async () => {
  const t = await mdHost({ ".agent/commands/f.md": md("!`echo oops >&2; exit 3`") }, { config: { permissions: { allow: ["run_command"] } } });
  expect((await t.run("/f")).prompt).toMatch(/^\[!`echo oops >&2; exit 3` failed: exit code 3 \(\d+ ms\)\n--- stderr ---\noops\]$/);
  const ok = await mdHost({ ".agent/commands/s.md": md("!`echo out; echo err >&2`") }, { config: { permissions: { allow: ["run_command"] } } });
  expect((await ok.run("/s")).prompt).toBe("out\nstderr:\nerr");
});

test("command output is capped by the gate", async () => {
  const t = await mdHost({ ".agent/commands/big.md": md("Numbers: !`seq 1 20000`") }, {
    config: { permissions: { allow: ["run_command(seq:*)"] }, tools: { overrides: { run_command: { maxOutputBytes: 300 } } } },
  });
  const { prompt } = await t.run("/big");
  expect(prompt).toMatch(/^Numbers: 1\n2\n3\n/);
  expect(prompt).toMatch(/\[output truncated: \d+ of \d+ bytes cut; the first \d+ bytes are shown\]$/);
  expect(prompt!.length).toBeLessThan(500);
});

test("arguments inside !`…` reach the command as quoted words, never as shell syntax", async () => {
  const t = await mdHost({ ".agent/commands/e.md": md("said: !`echo $ARGUMENTS` first: !`echo $1`"), ".claude/commands/ce.md": md("!`echo $0`") }, { config: ECHO });
  expect((await t.run(`/e a "b  c" $HOME`)).prompt).toBe("said: a b  c $HOME first: a");
  expect((await t.run("/ce '$(whoami)'")).prompt).toBe("$(whoami)");
  // `;` reaches echo as a word: the gate sees one echo command (allowed), and nothing else runs.
  expect((await t.run("/e x; touch pwned.txt `touch pwned2.txt`")).prompt).toBe("said: x ; touch pwned.txt `touch pwned2.txt` first: x");
  expect(existsSync(t.project.path("pwned.txt"))).toBe(false);
  expect(existsSync(t.project.path("pwned2.txt"))).toBe(false);
});

test("@path inserts the file through read_file; email addresses and missing paths stay text", async () => {
  const t = await mdHost({
    ".agent/commands/r.md": md("Review @src/x.ts. Mail a@b.c or @nobody, see @src and @missing.ts"),
    "src/x.ts": "export const x = 1;\n",
  });
  const { prompt } = await t.run("/r");
  expect(prompt).toBe(
    'Review <file path="src/x.ts">\n1\texport const x = 1;\n</file>. Mail a@b.c or @nobody, see <directory path="src">\nsrc/x.ts\n</directory> and @missing.ts',
  );
  expect(t.audit().filter((r) => r.kind === "call").map((r) => [r.name, r.outcome])).toEqual([
    ["read_file", "ok"],
    ["list_files", "ok"],
  ]);
});

test("@path outside the workspace is refused and the refusal is inserted", async () => {
  const t = await mdHost({ ".claude/commands/leak.md": md("Read @../secret.txt now") });
  writeFileSync(path.join(t.project.dir, "..", "secret.txt"), "TOPSECRET\n");
  const { prompt } = await t.run("/leak");
  expect(prompt).toMatch(/^Read \[@\.\.\/secret\.txt was not read: .*outside the workspace.*\] now$/s);
  expect(prompt).not.toContain("TOPSECRET");
});

test("a deny rule wins over everything, for @path too", async () => {
  const t = await mdHost({ ".agent/commands/r.md": md("@.env"), ".env": "KEY=secret\n" }, { config: { permissions: { deny: ["read_file(.env)"] } } });
  const { prompt } = await t.run("/r");
  expect(prompt).toMatch(/^\[@\.env was not read: Permission denied: read_file\(\.env\) was not run because it matches the deny rule/);
  expect(prompt).not.toContain("KEY=secret");
});
