/**
 * Shell rules judge what runs, not how it is spelt. Three tables:
 * 1. ordinary lines, with the subjects rules see (nothing a user relied on gets new prompts);
 * 2. a deny rule on `rm` against the ways a model can spell, wrap, nest or compute `rm`, in every mode;
 * 3. script files a line sources or runs, whose commands meet deny rules.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { decide } from "../helpers/decide.js";
import { compileRules } from "../../kit/rules/parse.js";
import { suggestRules } from "../../kit/rules/exact-rules.js";
import { shellCommands, UNCERTAIN } from "../../kit/shell/index.js";
import { denyOnly, opaqueReason } from "../../kit/shell/subject-marks.js";
import type { PermissionMode } from "../../core/types.js";
import { EVASIONS } from "../fixtures/shell-evasions.js";

const judge = async (rules: ReturnType<typeof compileRules>, mode: PermissionMode, line: string, files?: Parameters<typeof shellCommands>[1]) =>
  decide(rules, mode, "run_command", "execute", await shellCommands(line, files));

describe("ordinary lines: the subjects rules see", () => {
  test.each([
    ["git status", ["git status"]],
    ["ls | wc -l", ["ls", "wc -l"]],
    ["npm test", ["npm test"]],
    ["cd sub && make", ["cd sub", "make"]],
    ["npm run build -- --watch", ["npm run build -- --watch"]],
    ['git commit -m "fix the bug"', ["git commit -m 'fix the bug'"]],
    ["git log --oneline | head -20", ["git log --oneline", "head -20"]],
    ['grep -rn "TODO" src', ["grep -rn TODO src"]],
    ["find . -name '*.ts' | xargs wc -l", ["find . -name '*.ts'", "xargs wc -l", "wc -l"]],
    ["npx tsc --noEmit && npm test", ["npx tsc --noEmit", "npm test"]],
    ["python3 -m pytest -q tests/", ["python3 -m pytest -q tests/"]],
    ["make -j4 2>&1 | tail -50", ["make -j4", "tail -50"]],
    ["[ -d build ] || mkdir build", ["[ -d build ]", "mkdir build"]],
    ["test -f x && echo yes", ["test -f x", "echo yes"]],
    ["sed -n 1,20p src/a.ts", ["sed -n 1,20p src/a.ts"]],
    ["export NODE_ENV=test && npm test", ["export NODE_ENV=test", "npm test"]],
    ["NODE_ENV=test npm test", ["NODE_ENV=test npm test", denyOnly("npm test")]],
    ["timeout 60 npm test", ["npm test", denyOnly("timeout 60 npm test")]],
    ["echo $HOME", ["echo $HOME"]],
    ["npm test > out.log 2>&1", ["npm test", "> out.log"]],
    ["cat package.json | jq .scripts", ["cat package.json", "jq .scripts"]],
    ["for f in *.md; do wc -l \"$f\"; done", ['wc -l "$f"']],
    ["./gradlew build", ["./gradlew build", denyOnly("gradlew build")]],
  ])("%s", async (line, expected) => {
    expect(await shellCommands(line)).toEqual(expected);
  });

  const everyday = compileRules({
    allow: ["run_command(git status:*)", "run_command(git log:*)", "run_command(ls:*)", "run_command(wc:*)", "run_command(npm test:*)", "run_command(cd:*)", "run_command(make:*)", "run_command(head:*)", "run_command(tail:*)"],
    deny: ["run_command(rm:*)"],
  });
  test.each(["git status", "ls | wc -l", "npm test", "cd sub && make", "git log --oneline | head -20", "make -j4 2>&1 | tail -50", "timeout 60 npm test", "nice -n 5 make"])(
    "allowed by the rules a user wrote for it, a deny rule beside them: %s",
    async (line) => {
      expect((await judge(everyday, "default", line)).decision).toBe("allow");
    },
  );

  test("a transparent wrapper is judged by what it wraps: `timeout:*` alone does not allow `timeout 5 rm x`", async () => {
    const r = compileRules({ allow: ["run_command(timeout:*)"] });
    expect((await judge(r, "default", "timeout 5 rm x")).decision).toBe("ask");
    expect(suggestRules("run_command", await shellCommands("timeout 5 npm test"))).toEqual(["run_command(npm test)"]);
  });
});

describe("a deny rule on rm, and every other command allowed", () => {
  const rules = compileRules({ allow: ["run_command"], deny: ["run_command(rm:*)"] });
  const modes: PermissionMode[] = ["default", "acceptEdits", "bypass"];
  test(`${EVASIONS.length} lines that would delete a file: none is allowed in ${modes.join(", ")}`, async () => {
    const through: string[] = [];
    for (const mode of modes) {
      for (const line of EVASIONS) {
        const v = await judge(rules, mode, line);
        if (v.decision !== "deny") through.push(`${mode}: ${JSON.stringify(line)} → ${v.decision} (${v.by})`);
      }
    }
    expect(through).toEqual([]);
    expect(EVASIONS.length).toBeGreaterThan(150);
  });

  test("a computed line is denied because a deny rule may match it, and says why and how to write it", async () => {
    const subjects = await shellCommands("$X f");
    expect(opaqueReason(subjects)).toBe("the command word `$X` is computed when it runs");
    expect(decide(rules, "bypass", "run_command", "execute", subjects)).toEqual({ decision: "deny", by: "uncertain:run_command(rm:*)" });
  });

  test("what only looks like rm, or only mentions it, is not denied", async () => {
    for (const line of ["echo rm f", "echo 'rm -rf /'", "git rm --cached f", "grep -r rm .", "rmdir d", "npm run rm", "command -v rm", "ls -l /bin/rm", "cat <<EOF\nrm f\nEOF"]) {
      expect((await judge(rules, "default", line)).decision, line).toBe("allow");
    }
  });

  test("without any deny rule a computed line is only never allowed by a pattern: the mode decides", async () => {
    const allowOnly = compileRules({ allow: ["run_command(echo:*)", "run_command(ls:*)"] });
    expect((await judge(allowOnly, "default", "$X f")).decision).toBe("ask");
    expect((await judge(allowOnly, "bypass", "$X f")).decision).toBe("allow");
    expect((await judge(compileRules({ allow: ["run_command"] }), "default", "$X f")).decision).toBe("allow");
  });

  test("an ask rule meets a computed line too", async () => {
    const r = compileRules({ allow: ["run_command"], ask: ["run_command(git push:*)"] });
    expect((await judge(r, "bypass", "$(echo git) push")).decision).toBe("ask");
  });

  test("a line that changes what a command word names is never allowed by a pattern", async () => {
    const r = compileRules({ allow: ["run_command(git:*)", "run_command(ls:*)", "run_command(hash:*)", "run_command(export:*)"] });
    for (const line of ["PATH=.:$PATH; git status", "export PATH=./bin:$PATH && git status", "hash -p ./evil ls; ls", "LD_PRELOAD=./x.so ls"]) {
      expect((await judge(r, "default", line)).decision, line).toBe("ask");
    }
    expect(await shellCommands("PATH=.:$PATH; git status")).toContain(UNCERTAIN);
  });
});

describe("script files the line runs meet deny rules", () => {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "agent-scripts-")));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "s.sh"), "echo cleaning\nrm -f f\n");
  writeFileSync(path.join(dir, "plain.sh"), "#!/bin/sh\necho ok\n");
  writeFileSync(path.join(dir, "tool.py"), "#!/usr/bin/env python3\nimport os\n");
  mkdirSync(path.join(dir, "venv/bin"), { recursive: true });
  writeFileSync(path.join(dir, "venv/bin/activate"), 'deactivate () { unset VIRTUAL_ENV; }\nVIRTUAL_ENV="/x/venv"\nexport VIRTUAL_ENV\nhash -r 2> /dev/null\n');
  mkdirSync(path.join(dir, "sub"));
  writeFileSync(path.join(dir, "sub/s.sh"), "echo fine\n");
  const read = (f: string): string | undefined => {
    try {
      return readFileSync(f, "utf8");
    } catch {
      return undefined;
    }
  };
  const files = { files: { cwd: dir, read } };
  const deny = compileRules({ allow: ["run_command"], deny: ["run_command(rm:*)"] });

  test.each([". ./s.sh", "source s.sh", "bash s.sh", "sh ./s.sh", "./s.sh", "sudo bash s.sh", "cd sub && cd .. && . ./s.sh", "bash -c '. ./s.sh'"])("%s → deny", async (line) => {
    expect((await judge(deny, "bypass", line, files)).decision).toBe("deny");
  });

  test.each([
    ["echo 'rm f' > sub/s.sh; . ./sub/s.sh", "a line that writes before it sources"],
    ["cp s.sh sub/s.sh && bash sub/s.sh", "a file an earlier command may have written"],
    [". ./missing.sh", "a file that cannot be read"],
    ['cd "$D" && . ./s.sh', "a folder the text cannot tell"],
  ])("%s → deny (%s)", async (line) => {
    expect((await judge(deny, "bypass", line, files)).decision).toBe("deny");
  });

  test("a sourced file's commands need no allow rule of their own: the line as written is what is allowed", async () => {
    const r = compileRules({ allow: ["run_command(. venv/bin/activate)", "run_command(pytest:*)"], deny: ["run_command(rm:*)"] });
    expect((await judge(r, "default", ". venv/bin/activate && pytest -q", files)).decision).toBe("allow");
    expect((await judge(deny, "default", "bash sub/s.sh", files)).decision).toBe("allow");
    expect((await judge(deny, "default", "./plain.sh && ./tool.py", files)).decision).toBe("allow");
  });
});
