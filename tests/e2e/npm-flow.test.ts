/**
 * The npm flow end to end, with real npm and offline: an author builds and packs
 * examples/agent-plugin-example; a user has agent-host (packed from this repository, built first)
 * installed in a fresh project, installs the plugin's tarball there, adds the plugin by name, and runs
 * the CLI npm installed. The project starts as a copy of the agent-host install the e2e files share
 * (./_host.ts); pack and install happen once; each case writes the project config it needs.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempDir } from "../helpers/project.js";
import { copyInstalledHost, installedHost } from "./_host.js";
import { addTarballs, agent, buildExample, pack, type ExecResult, type Packed } from "./_npm.js";

const T = 120_000;
let work: string;
let project: string;
let configHome: string;
let examplePack: Packed;

beforeAll(async () => {
  assertBuilt();
  work = tempDir("agent-e2e-npm-");
  configHome = path.join(work, "user-config");
  mkdirSync(configHome);
  const [host, author] = await Promise.all([installedHost(), buildExample(path.join(work, "author", "agent-plugin-example"))]);
  examplePack = await pack(author, work);
  project = path.join(work, "project");
  copyInstalledHost(host, project);
  await addTarballs(project, [examplePack.file]);
}, 300_000); // may wait for the shared install that another e2e file builds

afterAll(cleanupTemp);

const run = (args: string[], dir = project) => agent(dir, configHome, args);
const pkgDir = () => path.join(project, "node_modules/agent-plugin-example");

function json<T>(r: ExecResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

function writeConfig(config: object, dir = project): void {
  writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify(config));
}

/** A folder the denied `rm -rf build` must leave alone (and the allowed one must remove). */
function makeBuildDir(): string {
  const dir = path.join(project, "build");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "keep.txt"), "x");
  return dir;
}

const rmBuild = ["call", "run_command", '{"command":"rm -rf build"}', "--permission-mode", "bypass", "--json"];

describe("packages", () => {
  test("the example's tarball ships its build, types and skill, not its sources", () => {
    expect(examplePack.files).toEqual(expect.arrayContaining(["package.json", "README.md", "dist/index.js", "dist/index.d.ts", "skills/example-review/SKILL.md"]));
    expect(examplePack.files.filter((f) => f.startsWith("src/") || f.startsWith("node_modules/") || f === "tsconfig.json")).toEqual([]);
  });

  test("the project's agent is the one npm installed from the agent-host tarball", () => {
    const bin = realpathSync(path.join(project, "node_modules/.bin/agent"));
    expect(bin).toBe(path.join(project, "node_modules/agent-host/dist/cli.cjs"));
    // One agent-host: the plugin's peer dependency is the project's copy, not a nested one.
    expect(existsSync(path.join(pkgDir(), "node_modules"))).toBe(false);
  });
});

describe("agent plugin add", () => {
  test(
    "by package name: already installed, so only added to a new .agentrc.json",
    async () => {
      const before = ["package.json", "package-lock.json"].map((f) => readFileSync(path.join(project, f), "utf8"));
      const r = await run(["plugin", "add", "agent-plugin-example"]);
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("agent-plugin-example");
      expect(JSON.parse(readFileSync(path.join(project, ".agentrc.json"), "utf8"))).toEqual({ plugins: ["agent-plugin-example"] });
      expect(["package.json", "package-lock.json"].map((f) => readFileSync(path.join(project, f), "utf8"))).toEqual(before);
    },
    T,
  );

  test(
    "by short name, in a second project sharing the installed packages",
    async () => {
      const second = path.join(work, "second");
      mkdirSync(second);
      writeFileSync(path.join(second, "package.json"), readFileSync(path.join(project, "package.json")));
      symlinkSync(path.join(project, "node_modules"), path.join(second, "node_modules"));
      const r = await run(["plugin", "add", "example"], second);
      expect(r.code, r.stderr).toBe(0);
      const config = JSON.parse(readFileSync(path.join(second, ".agentrc.json"), "utf8")) as { plugins: string[] };
      expect(config.plugins).toHaveLength(1);
      expect(["example", "agent-plugin-example"]).toContain(config.plugins[0]);
      const tools = json<{ name: string; source: string }[]>(await run(["tools", "--json"], second));
      expect(tools).toContainEqual(expect.objectContaining({ name: "word_count", source: "example" }));
    },
    T,
  );
});

describe("enabled", () => {
  beforeAll(() => writeConfig({ plugins: ["agent-plugin-example"] }));

  test(
    "agent tools lists word_count from the example, and agent call runs it",
    async () => {
      const tools = json<{ name: string; source: string; risk: string }[]>(await run(["tools", "--json"]));
      expect(tools).toContainEqual(expect.objectContaining({ name: "word_count", source: "example", risk: "read" }));
      const r = await run(["call", "word_count", '{"text":"a b c"}']);
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("3 words, 1 line, 5 characters\n");
      expect(r.code).toBe(0);
    },
    T,
  );

  test(
    "agent commands lists /example:review",
    async () => {
      const commands = json<Record<string, unknown>[]>(await run(["commands", "--json"]));
      expect(commands).toContainEqual({
        name: "example:review",
        description: expect.any(String),
        argumentHint: "<file>",
        source: "example",
        plugin: "example",
      });
    },
    T,
  );

  test(
    "agent skills lists example-review from the installed package's skills folder",
    async () => {
      const skills = json<{ name: string; description: string; source: string; plugin: string; path: string; state: string }[]>(await run(["skills", "--json"]));
      const skill = skills.find((s) => s.name === "example-review");
      expect(skill, JSON.stringify(skills)).toBeDefined();
      expect(skill!.description).toMatch(/^Review one source file/);
      expect(skill!.path).toBe(path.join(pkgDir(), "skills/example-review/SKILL.md"));
      expect(skill!.source).toMatch(/(^|:)example$/);
      expect(typeof skill!.state).toBe("string");
    },
    T,
  );

  test(
    "the policy denies a matching run_command (exit 3), also inside a chain, and lets others run",
    async () => {
      const build = makeBuildDir();
      const denied = await run(rmBuild);
      expect(denied.code).toBe(3);
      const { error } = json<{ ok: boolean; error: { code: string; message: string } }>(denied);
      expect(error.code).toBe("E_TOOL_DENIED");
      expect(error.message).toMatch(/plugin example refuses "rm -rf build".*rm -rf\*/);
      const chained = await run(["call", "run_command", '{"command":"echo ok &&  rm  -rf build"}', "--permission-mode", "bypass", "--json"]);
      expect(chained.code).toBe(3);
      expect(existsSync(build)).toBe(true);
      const allowed = await run(["call", "run_command", '{"command":"echo hi"}', "--permission-mode", "bypass", "--json"]);
      expect(allowed.code).toBe(0);
      expect(json<{ ok: boolean; output: string }>(allowed)).toMatchObject({ ok: true, output: expect.stringMatching(/\bhi\b/) });
    },
    T,
  );

  test(
    "denyCommands from the options replaces the default",
    async () => {
      writeConfig({ plugins: [["example", { denyCommands: ["echo:*"] }]] });
      try {
        expect((await run(["call", "run_command", '{"command":"echo hi"}', "--permission-mode", "bypass", "--json"])).code).toBe(3);
        const build = makeBuildDir();
        expect((await run(rmBuild)).code).toBe(0);
        expect(existsSync(build)).toBe(false);
      } finally {
        writeConfig({ plugins: ["agent-plugin-example"] });
      }
    },
    T,
  );

  test(
    "an option of the wrong type is a config error (exit 2) naming the plugin and the option",
    async () => {
      writeConfig({ plugins: [["example", { denyCommands: "rm" }]] });
      try {
        const r = await run(["tools"]);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/\.agentrc\.json/);
        expect(r.stderr).toMatch(/plugins\[example\].*denyCommands/);
      } finally {
        writeConfig({ plugins: ["agent-plugin-example"] });
      }
    },
    T,
  );
});

describe("disabled with disabledPlugins", () => {
  beforeAll(() => writeConfig({ plugins: ["agent-plugin-example"], disabledPlugins: ["example"] }));

  test(
    "agent plugins shows it disabled; its tool, command and skill are gone",
    async () => {
      const plugins = json<{ name: string; from: string; status: string }[]>(await run(["plugins", "--json"]));
      expect(plugins.filter((p) => p.from === "agent-plugin-example")).toEqual([expect.objectContaining({ status: "disabled" })]);
      expect(plugins.filter((p) => p.name === "example")).toEqual([]);
      const tools = json<{ name: string }[]>(await run(["tools", "--json"]));
      expect(tools.map((t) => t.name)).toContain("read_file"); // the listing itself works
      expect(tools.map((t) => t.name)).not.toContain("word_count");
      const commands = json<{ name: string }[]>(await run(["commands", "--json"]));
      expect(commands.map((c) => c.name)).toContain("help");
      expect(commands.map((c) => c.name)).not.toContain("example:review");
      const skills = json<{ name: string }[]>(await run(["skills", "--json"]));
      expect(skills.map((s) => s.name)).not.toContain("example-review");
    },
    T,
  );

  test(
    "its policy no longer applies: rm -rf build runs",
    async () => {
      const build = makeBuildDir();
      const r = await run(rmBuild);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(existsSync(build)).toBe(false);
    },
    T,
  );
});
