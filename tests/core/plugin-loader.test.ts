/**
 * Plugin loading from config: local files (.ts through jiti, .mjs), factories with options,
 * npm names from the config folder's node_modules (with the `foo` → `agent-plugin-foo` shorthand),
 * inline objects; and every way a plugin can fail to load, each reported and audited while the rest loads.
 */
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { instantiate } from "../../core/plugins/plugin-loader.js";
import { resolvePackage } from "../../kit/plugin-resolve.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { DIST_INDEX, DIST_INDEX_URL, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempProject, type TempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

/** An ESM plugin module with one echo tool named `tool`. */
const mjsPlugin = (name: string, tool: string) => `
import { definePlugin, z } from ${JSON.stringify(DIST_INDEX_URL)};
export default definePlugin({
  name: ${JSON.stringify(name)},
  tools: [{ name: ${JSON.stringify(tool)}, description: "from ${name}", risk: "read", input: z.object({}), run: () => "${tool} ran" }],
});
`;

/** A fake npm package: `node_modules/<pkg>/` with an `exports` map pointing into dist/. */
function fakePackage(project: TempProject, pkg: string, pluginName: string, tool: string): void {
  project.write(`node_modules/${pkg}/package.json`, {
    name: pkg,
    version: "1.0.0",
    type: "module",
    exports: { ".": { import: "./dist/index.mjs", require: "./dist/index.cjs" }, "./package.json": "./package.json" },
  });
  project.write(`node_modules/${pkg}/dist/index.mjs`, mjsPlugin(pluginName, tool));
}

async function hostFor(project: TempProject, cwd = project.dir) {
  return testHost({ project, cwd, loadConfigFiles: true, userConfigDir: project.configHome });
}

describe("loading plugins named in config", () => {
  test("local .ts (through jiti) and .mjs files, relative to the config file's folder", async () => {
    assertBuilt();
    const project = tempProject({
      "config/.agentrc.json": { plugins: ["./plugins/typed.ts", "./plugins/plain.mjs"] },
      "config/plugins/typed.ts": `
import { definePlugin } from ${JSON.stringify(DIST_INDEX)};
interface Options { shout?: boolean }
const suffix: string = "!";
export default definePlugin<Options>({
  name: "typed",
  tools: [{ name: "ts_tool", description: "typed tool", risk: "read", inputSchema: { type: "object", properties: { s: { type: "string" } } },
            run: (input: { s?: string }) => (input.s ?? "ts") + suffix }],
});
`,
      "config/plugins/plain.mjs": mjsPlugin("plain", "mjs_tool"),
    });
    const { host } = await hostFor(project, project.path("config"));
    expect(host.problems).toEqual([]);
    expect(host.plugins.map((p) => [p.name, p.status, p.from])).toEqual([
      ["typed", "loaded", project.path("config/plugins/typed.ts")],
      ["plain", "loaded", project.path("config/plugins/plain.mjs")],
    ]);
    expect(await host.tools.call("ts_tool", { s: "hey" })).toMatchObject({ ok: true, output: "hey!" });
    expect(await host.tools.call("mjs_tool", {})).toMatchObject({ ok: true, output: "mjs_tool ran" });
  });

  test('["./p.mjs", {options}] passes the options to a factory and to ctx.options', async () => {
    const project = tempProject({
      ".agentrc.json": { plugins: [["./factory.mjs", { greeting: "bonjour", n: 2 }]] },
      "factory.mjs": `
export default (options) => ({
  name: "factory",
  setup(ctx) { globalThis.__factoryCtxOptions = ctx.options; },
  tools: [{ name: "greet", description: "greets", risk: "read", inputSchema: { type: "object" }, run: () => options.greeting.repeat(options.n) }],
});
`,
    });
    const { host } = await hostFor(project);
    expect(await host.tools.call("greet", {})).toMatchObject({ ok: true, output: "bonjourbonjour" });
    expect((globalThis as { __factoryCtxOptions?: unknown }).__factoryCtxOptions).toEqual({ greeting: "bonjour", n: 2 });
    expect(host.plugins[0]).toMatchObject({ name: "factory", from: project.path("factory.mjs"), status: "loaded", tools: 1 });
  });

  test("npm names resolve from the config folder's node_modules, through package.json exports", async () => {
    const project = tempProject({ ".agentrc.json": { plugins: ["agent-plugin-foo", "@acme/agent-plugin-bar"] } });
    fakePackage(project, "agent-plugin-foo", "foo", "foo_tool");
    fakePackage(project, "@acme/agent-plugin-bar", "bar", "bar_tool");
    const { host } = await hostFor(project);
    expect(host.problems).toEqual([]);
    expect(host.plugins.map((p) => [p.name, p.from])).toEqual([
      ["foo", "agent-plugin-foo"],
      ["bar", "@acme/agent-plugin-bar"],
    ]);
    expect(host.tools.list().map((t) => t.name).sort()).toEqual(["bar_tool", "foo_tool"]);
  });

  test("the shorthand: foo finds agent-plugin-foo and @acme/bar finds @acme/agent-plugin-bar", async () => {
    const project = tempProject({ ".agentrc.json": { plugins: ["foo", "@acme/bar"] } });
    fakePackage(project, "agent-plugin-foo", "foo", "foo_tool");
    fakePackage(project, "@acme/agent-plugin-bar", "bar", "bar_tool");
    const { host } = await hostFor(project);
    expect(host.problems).toEqual([]);
    expect(host.plugins.map((p) => [p.name, p.status])).toEqual([
      ["foo", "loaded"],
      ["bar", "loaded"],
    ]);
    expect(await host.tools.call("foo_tool", {})).toMatchObject({ ok: true, output: "foo_tool ran" });
  });

  test("packages are found in node_modules of a parent folder, as Node does (searching from a subfolder config)", async () => {
    const project = tempProject({ "sub/.agentrc.json": { plugins: ["foo"] } });
    fakePackage(project, "agent-plugin-foo", "foo", "foo_tool");
    const { host } = await hostFor(project, project.path("sub"));
    expect(host.tools.get("foo_tool")?.plugin).toBe("foo");
  });

  test("resolvePackage handles exports strings, main and module fields", () => {
    const project = tempProject();
    project.write("node_modules/a/package.json", { name: "a", exports: "./lib/a.js" });
    project.write("node_modules/a/lib/a.js", "export default {}");
    project.write("node_modules/b/package.json", { name: "b", main: "main.js" });
    project.write("node_modules/b/main.js", "");
    project.write("node_modules/c/package.json", { name: "c", module: "esm/index.js", main: "cjs/index.js" });
    project.write("node_modules/c/esm/index.js", "");
    project.write("node_modules/d/package.json", { name: "d", exports: { "./other": "./other.js" } });
    expect(resolvePackage("a", project.dir)).toBe(project.path("node_modules/a/lib/a.js"));
    expect(resolvePackage("b", project.dir)).toBe(project.path("node_modules/b/main.js"));
    expect(resolvePackage("c", project.dir)).toBe(project.path("node_modules/c/esm/index.js"));
    expect(resolvePackage("d", project.dir)).toBeUndefined(); // no "." export
    expect(resolvePackage("missing", project.dir)).toBeUndefined();
  });

  test("inline plugin objects in a JS config file", async () => {
    const project = tempProject({
      "agent.config.mjs": `
import { defineConfig, definePlugin, z } from ${JSON.stringify(DIST_INDEX_URL)};
export default defineConfig({
  plugins: [definePlugin({ name: "inline", tools: [{ name: "inline_tool", description: "d", risk: "read", input: z.object({ a: z.number() }), run: ({ a }) => String(a * 2) }] })],
});
`,
    });
    const { host } = await hostFor(project);
    expect(host.plugins[0]).toMatchObject({ name: "inline", from: "inline:inline", status: "loaded" });
    expect(await host.tools.call("inline_tool", { a: 21 })).toMatchObject({ ok: true, output: "42" });
  });

  test("a plugin file given in the user config resolves relative to the user config folder", async () => {
    const project = tempProject();
    const { writeFile } = await import("../helpers/project.js");
    writeFile(path.join(project.configHome, "config.json"), { plugins: ["./mine.mjs"] });
    writeFile(path.join(project.configHome, "mine.mjs"), mjsPlugin("mine", "user_tool"));
    const { host } = await hostFor(project);
    expect(host.problems).toEqual([]);
    expect(host.tools.get("user_tool")?.plugin).toBe("mine");
  });
});

describe("plugins that fail to load are reported and audited; the host starts without them", () => {
  test("missing file, missing package, syntax error, throw on import, garbage export, throwing factory", async () => {
    const project = tempProject({
      ".agentrc.json": {
        plugins: [
          "./good-before.mjs",
          "./does-not-exist.mjs",
          "not-installed-anywhere",
          "./syntax-error.mjs",
          "./throws-on-import.mjs",
          "./garbage.mjs",
          "./named-only.mjs",
          ["./throwing-factory.mjs", { x: 1 }],
          "./broken.ts",
          "./good-after.mjs",
        ],
      },
      "good-before.mjs": mjsPlugin("before", "before_tool"),
      "syntax-error.mjs": "export default {{{ ;",
      "throws-on-import.mjs": "throw new Error('cannot start: missing API key');",
      "garbage.mjs": "export default 42;",
      "named-only.mjs": "export const plugin = { name: 'named' };",
      "throwing-factory.mjs": "export default () => { throw new Error('bad options'); };",
      "broken.ts": "const x: number = ;\nexport default { name: 'broken' };",
      "good-after.mjs": mjsPlugin("after", "after_tool"),
    });
    const { host, audit } = await hostFor(project);
    expect(host.tools.list().map((t) => t.name).sort()).toEqual(["after_tool", "before_tool"]);
    const failed = host.plugins.filter((p) => p.status === "failed");
    const errorFor = (from: string) => failed.find((p) => p.from === from || p.from === project.path(from))?.error;
    expect(errorFor("./does-not-exist.mjs")).toMatch(/file not found: .*does-not-exist\.mjs/);
    expect(errorFor("not-installed-anywhere")).toMatch(
      /package not-installed-anywhere or agent-plugin-not-installed-anywhere is not installed .*Install it with: agent plugin add not-installed-anywhere/,
    );
    expect(errorFor("./syntax-error.mjs")).toMatch(/failed to import .*syntax-error\.mjs: .+/);
    expect(errorFor("./throws-on-import.mjs")).toMatch(/failed to import .*throws-on-import\.mjs: cannot start: missing API key/);
    expect(errorFor("./garbage.mjs")).toMatch(/its default export is not a plugin/);
    expect(errorFor("./named-only.mjs")).toMatch(/its default export is not a plugin/);
    expect(errorFor("./throwing-factory.mjs")).toBe("bad options");
    expect(errorFor("./broken.ts")).toMatch(/failed to import .*broken\.ts/);
    expect(failed).toHaveLength(8);
    expect(host.plugins.filter((p) => p.status === "loaded").map((p) => p.name)).toEqual(["before", "after"]);

    // one problem per failure, naming the plugin and the reason
    const problems = host.problems.filter((p) => p.kind === "plugin");
    expect(problems).toHaveLength(8);
    for (const p of problems) expect(p.message).toMatch(/^Plugin .+ failed to load: .+\. Continuing without it\.$/);
    // and one audit record each
    const records = audit().filter((r) => r.kind === "plugin" && r.outcome === "failed");
    expect(records).toHaveLength(8);
    expect(records.map((r) => r.name)).toContain("not-installed-anywhere");
  });

  test("instantiate accepts objects, factories and CJS double defaults; rejects the rest", async () => {
    await expect(instantiate({ default: { name: "a" } }, {}, "a")).resolves.toMatchObject({ plugin: { name: "a" } });
    await expect(instantiate({ default: (o: { n: string }) => ({ name: o.n }) }, { n: "b" }, "b")).resolves.toMatchObject({ plugin: { name: "b" } });
    await expect(instantiate({ default: { default: { name: "c" } } }, {}, "c")).resolves.toMatchObject({ plugin: { name: "c" } });
    await expect(instantiate({ default: async () => ({ name: "d" }) }, {}, "d")).resolves.toMatchObject({ plugin: { name: "d" } });
    await expect(instantiate({ default: { name: "" } }, {}, "e")).rejects.toThrow(/not a plugin/);
    await expect(instantiate({ default: null }, {}, "f")).rejects.toThrow(/not a plugin/);
    await expect(instantiate({ default: () => undefined }, {}, "g")).rejects.toThrow(/not a plugin/);
  });
});
