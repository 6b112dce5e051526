/**
 * The permission question as the terminal shows it, for a table of commands and edits, through a real
 * host and gate: the whole command line, what the rules see, a diff of the edit computed from the file,
 * the rules offered (never broader than what is shown), and each answer's effect.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../core/index.js";
import { builtinPlugins } from "../../cli/builtins.js";
import { createPermissionAsker, hostAware } from "../../cli/render/permission-prompt.js";
import { stripAnsi } from "../../cli/render/_style.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

let host: Host;
let dir: string;
let answers: string[] = [];
let questions: string[] = [];
let out = "";
let noColor: string | undefined;
const output = { isTTY: true, write: (s: string) => void (out += s) };

beforeAll(async () => {
  const p = tempProject({ "a.txt": "one\ntwo\nthree\nfour\n", "src/app.ts": "export const x = 1;\n" });
  dir = p.dir;
  // Colours on for this asker (NO_COLOR would win over FORCE_COLOR).
  noColor = process.env.NO_COLOR;
  delete process.env.NO_COLOR;
  process.env.FORCE_COLOR = "1";
  host = await createHost({
    cwd: dir,
    userConfigDir: false,
    audit: false,
    builtins: builtinPlugins.filter((b) => b.name === "tools"),
    askPermission: createPermissionAsker({
      output,
      ask: async (q) => {
        questions.push(q);
        return answers.shift() ?? "n";
      },
      ...hostAware(() => host),
    }),
  });
});
afterAll(async () => {
  delete process.env.FORCE_COLOR;
  if (noColor !== undefined) process.env.NO_COLOR = noColor;
  await host.close();
  cleanupTemp();
});

async function ask(tool: string, input: unknown, reply: string[] = ["n"]) {
  answers = [...reply];
  questions = [];
  out = "";
  const result = await host.tools.call(tool, input);
  return { result, question: stripAnsi(questions[0] ?? ""), raw: questions[0] ?? "", all: questions.map(stripAnsi) };
}

describe("what the question shows", () => {
  it.each([
    ["npm test", ["$ npm test"], "run_command(npm test)", "run_command(npm test)"],
    ["npm test && rm -rf build", ["$ npm test && rm -rf build", "runs: npm test  ·  rm -rf build"], "run_command(npm test), run_command(rm -rf build)", "run_command(npm test), run_command(rm -rf build)"],
    ["rm *.txt", ["$ rm *.txt"], "run_command(rm *.txt)", "run_command(rm \\*.txt)"],
    ["cd src &&\nmake all", ["$ cd src &&", "  make all"], "run_command(cd src), run_command(make all)", "run_command(cd src), run_command(make all)"],
  ])("run_command %j", async (command, shown, session, project) => {
    const { question } = await ask("run_command", { command });
    for (const line of shown) expect(question).toContain(line);
    expect(question).toContain(`a  yes, always this session: ${session}`);
    expect(question).toContain(`p  yes, always for this project: ${project} (saved in .agent/settings.local.json)`);
    expect(question).toContain("m  no, and tell the model what to do instead");
  });

  it("a command computed when it runs gets no always answer", async () => {
    const { question } = await ask("run_command", { command: "echo $(whoami)" });
    expect(question).toContain("$ echo $(whoami)");
    expect(question).toContain("part of it is computed when it runs");
    expect(question).not.toMatch(/always/);
  });

  it.each([
    ["edit_file", { path: "a.txt", old_string: "two", new_string: "TWO" }, ["--- a.txt", "+++ a.txt", "@@ -1,4 +1,4 @@", " one", "-two", "+TWO", " three"], "edit_file(/a.txt)"],
    ["write_file", { path: "new/b.txt", content: "alpha\nbeta\n" }, ["new file, 2 lines", "--- /dev/null", "+alpha", "+beta"], "write_file(/new/b.txt)"],
    ["write_file", { path: "src/app.ts", content: "export const x = 2;\n" }, ["-export const x = 1;", "+export const x = 2;"], "write_file(/src/app.ts)"],
    ["edit_file", { path: "a.txt", old_string: "nine", new_string: "9" }, ["old_string is not in a.txt: the edit will fail"], "edit_file(/a.txt)"],
    ["edit_file", { path: "../outside.txt", old_string: "a", new_string: "b" }, ["outside the workspace", "the tool will refuse it"], undefined],
  ])("%s %j shows its diff", async (tool, input, shown, project) => {
    const { question, raw } = await ask(tool, input);
    for (const line of shown) expect(question).toContain(line);
    if (project) expect(question).toContain(`always for this project: ${project}`);
    if (shown.some((l) => l.startsWith("+"))) expect(raw).toContain("\x1b[32m+"); // coloured
  });

  it("a long diff is cut with a count, and d shows all of it", async () => {
    const content = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const { all } = await ask("write_file", { path: "long.txt", content }, ["d", "n"]);
    expect(all[0]).toMatch(/… \d+ more lines \(d shows all\)/);
    expect(all[1]).toContain("+line 99");
  });
});

describe("the answers", () => {
  it("p saves the exact rule in .agent/settings.local.json (git-ignored) and allows for the rest of the session", async () => {
    const first = await ask("run_command", { command: "echo saved" }, ["p"]);
    expect(first.result.ok).toBe(true);
    expect(out).toContain("saved run_command(echo saved) in");
    const file = path.join(dir, ".agent", "settings.local.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ permissions: { allow: ["run_command(echo saved)"] } });
    expect(readFileSync(path.join(dir, ".agent", ".gitignore"), "utf8")).toContain("settings.local.json");
    const again = await ask("run_command", { command: "echo saved" });
    expect(again.result.ok).toBe(true);
    expect(again.all).toEqual([]);
    // A second project answer adds to the file, keeping what is there.
    await ask("run_command", { command: "echo more" }, ["p"]);
    expect(JSON.parse(readFileSync(file, "utf8")).permissions.allow).toEqual(["run_command(echo saved)", "run_command(echo more)"]);
  });

  it("m denies with a message the model reads", async () => {
    const { result } = await ask("write_file", { path: "a.txt", content: "x" }, ["m", "use edit_file for a.txt"]);
    expect(result.ok).toBe(false);
    expect(result.output).toContain("Permission denied by the user: write_file(a.txt) was not run. The user says: use edit_file for a.txt");
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("one\ntwo\nthree\nfour\n");
  });

  it("y allows once, n denies, a allows this session only (nothing saved)", async () => {
    writeFileSync(path.join(dir, "c.txt"), "c\n");
    expect((await ask("edit_file", { path: "c.txt", old_string: "c", new_string: "C" }, ["y"])).result.ok).toBe(true);
    expect((await ask("edit_file", { path: "c.txt", old_string: "C", new_string: "c" }, ["n"])).result.ok).toBe(false);
    expect((await ask("edit_file", { path: "c.txt", old_string: "C", new_string: "c" }, ["a"])).result.ok).toBe(true);
    const next = await ask("edit_file", { path: "c.txt", old_string: "c", new_string: "C" });
    expect(next.all).toEqual([]);
    expect(JSON.parse(readFileSync(path.join(dir, ".agent", "settings.local.json"), "utf8")).permissions.allow).not.toContain("edit_file(/c.txt)");
  });
});
