/**
 * `agent plugin new` end to end, as a plugin author does it: scaffold with the BUILT CLI, then in the
 * scaffold `npm install --offline` (the lock comes from agent-host's, so the npm cache that `npm ci`
 * filled is enough), `npm run build` and `npm test`; then load the built plugin into a project through
 * the CLI. Nothing is mocked. The tests of the first describe run in order and share the scaffold.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { cleanEnv, runCli, type CliResult } from "../helpers/cli.js";
import { REPO_ROOT, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempDir } from "../helpers/project.js";

beforeAll(assertBuilt);
afterAll(cleanupTemp);
// npm installs, tsup builds and an inner vitest run: minutes on a loaded 2-core machine, not seconds.
vi.setConfig({ testTimeout: 120_000 });

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));
const ROOT_LOCK = readJson(path.join(REPO_ROOT, "package-lock.json"));
const VERSION: string = readJson(path.join(REPO_ROOT, "package.json")).version;
const lockedVersion = (name: string): string => ROOT_LOCK.packages[`node_modules/${name}`].version;

/** A place to work in: `cwd` for the CLI and an empty user config folder. */
function workspace(): { cwd: string; configHome: string } {
  const base = tempDir("agent-plugin-new-");
  const cwd = path.join(base, "work");
  const configHome = path.join(base, "user-config");
  mkdirSync(cwd);
  mkdirSync(configHome);
  return { cwd, configHome };
}

const agent = (w: { cwd: string; configHome: string }, args: string[]): Promise<CliResult> => runCli(args, { ...w, timeoutMs: 60_000 });

/** Run npm in `cwd` with the outer vitest's variables removed (they would change the inner vitest). */
function npm(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // Offline from the npm cache (the scaffold's lock is complete, so npm needs no registry metadata).
    const child = spawn("npm", args, { cwd, env: cleanEnv({ npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" }), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 110_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function npmOk(args: string[], cwd: string): Promise<string> {
  const r = await npm(args, cwd);
  // ENOTCACHED: the npm cache lacks a package of the lock; `npm ci` in the repo fills it, as CI does.
  const hint = r.output.includes("ENOTCACHED") ? "\n(run npm ci in the repository first to fill the npm cache)" : "";
  if (r.code !== 0) throw new Error(`npm ${args.join(" ")} exited ${r.code} in ${cwd}:\n${r.output}${hint}`);
  return r.output;
}

/**
 * The walkthrough at the top of docs/plugins.md, command for command:
 *   agent plugin new hello
 *   cd agent-plugin-hello && npm install
 *   npm run build && npm test
 *   cd ../my-project && agent plugin add ../agent-plugin-hello
 *   agent tools
 * (npm runs offline here: `npm_config_offline=true`, the same as `npm install --offline`.)
 */
describe("the guide's walkthrough: a scaffold, built and tested as generated, then loaded", () => {
  const w = workspace();
  const dir = path.join(w.cwd, "agent-plugin-hello");

  test("1. agent plugin new hello writes a complete package", async () => {
    const r = await agent(w, ["plugin", "new", "hello"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("cd agent-plugin-hello && npm install && npm run build && npm test");
    expect(r.stdout).toContain(`agent plugin add ${dir}`);

    const pkg = readJson(path.join(dir, "package.json"));
    const [major, minor] = VERSION.split(".");
    expect(pkg).toMatchObject({
      name: "agent-plugin-hello",
      version: "0.1.0",
      type: "module",
      keywords: ["agent-plugin"],
      files: ["dist", "skills"],
      exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } },
      scripts: { build: "tsup", test: "vitest run", typecheck: "tsc --noEmit" },
      peerDependencies: { "agent-host": `^${major}.${minor}.0` },
      // The host provides agent-host to its plugins: npm need not install the peer from a registry.
      peerDependenciesMeta: { "agent-host": { optional: true } },
      devDependencies: {
        // What the published manifest carries: a range, never the author's path.
        "agent-host": `^${major}.${minor}.0`,
        tsup: lockedVersion("tsup"),
        typescript: lockedVersion("typescript"),
        vitest: lockedVersion("vitest"),
      },
    });
    const skill = readFileSync(path.join(dir, "skills/hello-guide/SKILL.md"), "utf8");
    expect(skill).toMatch(/^---\nname: hello-guide\ndescription: .+\n---\n/);
    expect(readFileSync(path.join(dir, ".gitignore"), "utf8")).toMatch(/node_modules[\s\S]*dist/);
    for (const f of ["README.md", "tsconfig.json", "tsup.config.ts", "src/index.ts", "test/plugin.test.ts"]) expect(existsSync(path.join(dir, f)), f).toBe(true);
    expect(readFileSync(path.join(dir, "src/index.ts"), "utf8")).not.toMatch(/__[A-Z]+__/);

    expect(readFileSync(path.join(dir, "package.json"), "utf8")).not.toContain("file:");
    // The lock: agent-host's versions, and agent-host linked to this copy as npm writes a `file:` link.
    const lock = readJson(path.join(dir, "package-lock.json"));
    expect(lock.packages["node_modules/tsup"].version).toBe(lockedVersion("tsup"));
    const target = path.relative(dir, REPO_ROOT);
    expect(lock.packages["node_modules/agent-host"]).toEqual({ resolved: target, link: true });
    expect(lock.packages[target]).toMatchObject({ version: VERSION });
    expect(r.stdout).toContain(`agent-host (dev dependency): ^${major}.${minor}.0, which package-lock.json links to ${REPO_ROOT}`);
  });

  test("2, 3. npm install, npm run build and npm test succeed in it", async () => {
    await npmOk(["install"], dir);
    // The range in package.json, the link from the lock: this agent-host, not one from a registry.
    expect(realpathSync(path.join(dir, "node_modules/agent-host"))).toBe(realpathSync(REPO_ROOT));
    await npmOk(["run", "build"], dir);
    expect(existsSync(path.join(dir, "dist/index.js"))).toBe(true);
    expect(existsSync(path.join(dir, "dist/index.d.ts"))).toBe(true);
    const out = await npmOk(["test"], dir);
    expect(out).toMatch(/Tests\s+\d+ passed/);
    expect(out).not.toMatch(/failed/);
  });

  test("4, 5. in a project next to it: agent plugin add ../agent-plugin-hello, then agent tools shows its tool", async () => {
    const project = { cwd: path.join(w.cwd, "my-project"), configHome: w.configHome };
    mkdirSync(project.cwd);
    writeFileSync(path.join(project.cwd, "package.json"), JSON.stringify({ name: "my-project", private: true }));
    // npm links the folder, so no registry is needed.
    // As the walkthrough's user: a folder not trusted yet (no AGENT_TRUST), which plugin add trusts for the plugin.
    const untrusted = { npm_config_offline: "true", AGENT_TRUST: undefined };
    const added = await runCli(["plugin", "add", "../agent-plugin-hello"], { ...project, env: untrusted, timeoutMs: 60_000 });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain("so the folder is trusted for it");
    expect(existsSync(path.join(project.cwd, "node_modules/agent-plugin-hello/dist/index.js"))).toBe(true);
    expect(readJson(path.join(project.cwd, ".agentrc.json"))).toEqual({ plugins: ["agent-plugin-hello"] });
    const listed = await runCli(["tools"], { ...project, env: untrusted, timeoutMs: 60_000 });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^hello_greet\s+read\s+hello\s+Greet someone by name\./m);

    // Beyond the walkthrough: the user gives it options, by its short name; its policy and skill work.
    writeFileSync(path.join(project.cwd, ".agentrc.json"), JSON.stringify({ plugins: [["hello", { greeting: "Hi", refuse: ["Mallory"] }]] }));

    const [plugins, tools, skills, ok, denied] = await Promise.all([
      agent(project, ["plugins", "--json"]),
      agent(project, ["tools", "--json"]),
      agent(project, ["skills", "--json"]),
      agent(project, ["call", "hello_greet", '{"name":"Ada"}']),
      agent(project, ["call", "hello_greet", '{"name":"Mallory"}']),
    ]);
    expect(JSON.parse(plugins.stdout)).toContainEqual(expect.objectContaining({ name: "hello", status: "loaded", version: "0.1.0", tools: 1, commands: 1 }));
    expect(JSON.parse(tools.stdout)).toContainEqual(expect.objectContaining({ name: "hello_greet", risk: "read" }));
    expect(JSON.parse(skills.stdout)).toContainEqual(expect.objectContaining({ name: "hello-guide", source: "hello", path: path.join(project.cwd, "node_modules/agent-plugin-hello/skills/hello-guide/SKILL.md") }));
    expect(ok).toMatchObject({ code: 0, stdout: "Hi, Ada!\n" });
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain("hello is configured not to greet Mallory");
  });
});

describe("names, folders and refusals", () => {
  test("a scoped name, the default folder under --cwd, and --host", async () => {
    const w = workspace();
    const r = await agent(w, ["--cwd", w.cwd, "plugin", "new", "@acme/hello-world", "--host", "^0.1.0"]);
    expect(r.code).toBe(0);
    const dir = path.join(w.cwd, "agent-plugin-hello-world");
    expect(readJson(path.join(dir, "package.json"))).toMatchObject({ name: "@acme/agent-plugin-hello-world", devDependencies: { "agent-host": "^0.1.0" } });
    // --host is npm's to resolve: the lock links nothing.
    expect(readJson(path.join(dir, "package-lock.json")).packages["node_modules/agent-host"]).toBeUndefined();
    const src = readFileSync(path.join(dir, "src/index.ts"), "utf8");
    expect(src).toContain('name: "@acme/hello-world"');
    expect(src).toContain('name: "hello_world_greet"');
    expect(readFileSync(path.join(dir, "skills/hello-world-guide/SKILL.md"), "utf8")).toContain("name: hello-world-guide\n");
  });

  test("a folder that is not empty is refused, and nothing is written", async () => {
    const w = workspace();
    const dir = path.join(w.cwd, "taken");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "keep.txt"), "mine");
    const r = await agent(w, ["plugin", "new", "demo", "--dir", dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${dir} already exists and is not empty`);
    expect(readdirSync(dir)).toEqual(["keep.txt"]);
  });

  test("a bad name is refused with the rule, and nothing is written", async () => {
    const w = workspace();
    const results = await Promise.all(["Hello", "my_tool", "a--b", "@Acme/x"].map((name) => agent(w, ["plugin", "new", name])));
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("lowercase letters and digits, words joined by single hyphens");
    }
    const prefixed = await agent(w, ["plugin", "new", "agent-plugin-x"]);
    expect(prefixed).toMatchObject({ code: 2, stderr: expect.stringContaining('without "agent-plugin-"') });
    const none = await agent(w, ["plugin", "new"]);
    expect(none).toMatchObject({ code: 2, stderr: expect.stringContaining("takes one name") });
    expect(readdirSync(w.cwd)).toEqual([]);
  });
});
