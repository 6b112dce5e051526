/**
 * The loader hook that resolves `agent-host` inside plugins to the running host (kit/self-package.ts) is
 * registered only for a plugin whose import graph may reach agent-host: on Node 20 it costs every later
 * import. Each project below is a temp folder where agent-host does not resolve on its own, so a plugin
 * that imports it loads only through the hook, and `import.meta.resolve` shows whether the hook is there.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { runCli } from "../helpers/cli.js";
import { DIST_INDEX_URL, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);
beforeAll(assertBuilt);
vi.setConfig({ testTimeout: 120_000 });

/** A plugin file with one tool, `probe`: where `agent-host` resolves from the plugin, and what `z` is. */
const plugin = (imports: string, zExpr = "undefined") => `${imports}
export default {
  name: "probe-plugin",
  tools: [{ name: "probe", description: "Where agent-host resolves", risk: "read", inputSchema: { type: "object" },
    run: () => {
      let where;
      try { where = import.meta.resolve(["agent", "host"].join("-")); } catch (e) { where = e.code; }
      return where + " z:" + typeof (${zExpr})?.object;
    } }],
};
`;

const probe = async (files: Record<string, string | object>) => {
  const p = tempProject({ ".agentrc.json": { plugins: ["./plugin.mjs"] }, ...files });
  return runCli(["call", "probe"], { cwd: p.dir, configHome: p.configHome, env: { AGENT_DEBUG: "1" }, timeoutMs: 90_000 });
};

const HOOKED = /\[agent:plugins\] agent-host resolution hook registered for .*plugin\.mjs/;

describe.concurrent("the agent-host loader hook", () => {
  test("is not registered for a plugin whose imports (a helper, a package, node:) never reach agent-host", async () => {
    const r = await probe({
      "plugin.mjs": plugin(`import { shout } from "./lib/helper.mjs";\nimport path from "node:path";\nimport "./data.json" with { type: "json" };`),
      "data.json": "{}",
      "lib/helper.mjs": `import { loud } from "plain-pkg";\nexport const shout = (s) => loud(s);\nexport const later = () => import("./later.mjs");\n`,
      "lib/later.mjs": "export const x = 1;\n",
      "node_modules/plain-pkg/package.json": { name: "plain-pkg", version: "1.0.0", type: "module", exports: "./index.js", dependencies: { other: "1" } },
      "node_modules/plain-pkg/index.js": "export const loud = (s) => s.toUpperCase();\n",
    });
    expect(r).toMatchObject({ code: 0, stdout: "ERR_MODULE_NOT_FOUND z:undefined\n" });
    expect(r.stderr).not.toMatch(HOOKED);
  });

  const needsIt: [string, Record<string, string | object>][] = [
    ["directly", { "plugin.mjs": plugin(`import { z } from "agent-host";`, "z") }],
    ["through a relative helper file", { "plugin.mjs": plugin(`import { z } from "./helpers/z.mjs";`, "z"), "helpers/z.mjs": `export { z } from "agent-host";\n` }],
    ["through a computed import()", { "plugin.mjs": plugin(`const { z } = await import(["agent", "host"].join("-"));`, "z") }],
    [
      "through a package that peer-depends on agent-host",
      {
        "plugin.mjs": plugin(`import { z } from "zod-helper";`, "z"),
        "node_modules/zod-helper/package.json": { name: "zod-helper", version: "1.0.0", type: "module", exports: "./index.js", peerDependencies: { "agent-host": "*" } },
        "node_modules/zod-helper/index.js": `export { z } from "agent-host";\n`,
      },
    ],
  ];
  test.for(needsIt)("is registered for a plugin importing agent-host %s, which loads and runs", async ([, files]) => {
    const r = await probe(files);
    expect(r).toMatchObject({ code: 0, stdout: `${DIST_INDEX_URL} z:function\n` });
    expect(r.stderr).toMatch(HOOKED);
  });
});
