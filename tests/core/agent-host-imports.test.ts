/**
 * kit/agent-host-imports.ts: when the scan of a plugin's import graph says it may import agent-host (so the
 * loader hook is registered), and when it may say no. Doubt answers yes. Real files in a temp folder.
 */
import { afterAll, describe, expect, test } from "vitest";
import { mayImportAgentHost } from "../../kit/agent-host-imports.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

const scan = (files: Record<string, string | object>, hostDir?: string) => mayImportAgentHost(tempProject(files).path("plugin.mjs"), hostDir);
const pkg = (name: string, extra: object = {}) => ({ [`node_modules/${name}/package.json`]: { name, version: "1.0.0", type: "module", exports: "./index.js", ...extra }, [`node_modules/${name}/index.js`]: "export default 1;\n" });

describe("mayImportAgentHost", () => {
  test("no: builtins, JSON, a literal import() of a helper, a package that does not name agent-host, import.meta", async () => {
    expect(
      await scan({
        "plugin.mjs": `import fs from "fs";\nimport "node:path";\nimport d from "./d.json" with { type: "json" };\nexport * from "plain";\nexport const u = import.meta.url;\nexport const later = () => import("./a/b.js?x=1");\n`,
        "d.json": "{}",
        "a/b.js": `import "../plugin.mjs";\n`,
        ...pkg("plain", { dependencies: { "not-agent-host": "1" } }),
      }),
    ).toBe(false);
  });

  test.for<[string, Record<string, string | object>]>([
    ["a subpath of agent-host", { "plugin.mjs": `import { createTestHost } from "agent-host/testing";\n` }],
    ["a missing relative file", { "plugin.mjs": `import "./gone.mjs";\n` }],
    ["a CommonJS helper", { "plugin.mjs": `import "./h.cjs";\n`, "h.cjs": "module.exports = 1;\n" }],
    ["require through createRequire", { "plugin.mjs": `import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\nrequire("x");\n` }],
    ["a file that does not lex", { "plugin.mjs": `import "./bad.js";\n`, "bad.js": "export {{{ nope\n" }],
    ["a package that is not installed", { "plugin.mjs": `import "nowhere";\n` }],
    ["a package with agent-host as optional dependency", { "plugin.mjs": `import "@s/opt/sub";\n`, ...pkg("@s/opt", { optionalDependencies: { "agent-host": "*" } }) }],
    ["a subpath import (#)", { "plugin.mjs": `import "#x";\n` }],
  ])("yes: %s", async ([, files]) => {
    expect(await scan(files)).toBe(true);
  });

  test("yes past 200 files; files under the host's own folder are not followed", async () => {
    const chain: Record<string, string> = { "plugin.mjs": `import "./f0.mjs";\n` };
    for (let i = 0; i < 200; i++) chain[`f${i}.mjs`] = `import "./f${i + 1}.mjs";\n`;
    chain["f200.mjs"] = "export {};\n";
    expect(await scan(chain)).toBe(true);
    const p = tempProject({ "plugin.mjs": `import "./host/index.js";\n`, "host/index.js": `export * from "agent-host";\n` });
    expect(await mayImportAgentHost(p.path("plugin.mjs"), p.path("host"))).toBe(false);
    expect(await mayImportAgentHost(p.path("plugin.mjs"))).toBe(true);
  });
});
