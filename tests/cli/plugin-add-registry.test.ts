/**
 * `agent plugin add <name>` against a registry (a small one on 127.0.0.1, with real npm) that has the
 * plugin but, as the public registry, no agent-host: npm's cause is shown (its first error line and
 * code), the missing peer is explained, and --legacy-peer-deps installs it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { npmCause } from "../../cli/commands/plugin-add.js";
import { runCli } from "../helpers/cli.js";
import { startFakeRegistry, type FakeRegistry } from "../helpers/fake-registry.js";
import { assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempDir, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);
vi.setConfig({ testTimeout: 180_000 });

const NPM_404 = `npm warn ERESOLVE overriding peer dependency
npm error code E404
npm error 404 Not Found - GET http://127.0.0.1:41717/agent-host - Not found
npm error 404
npm error 404  The requested resource 'agent-host@^0.1.0' could not be found or you do not have permission to access it.
npm error 404 Note that you can also install from a
npm error 404 tarball, folder, http url, or git url.
npm error A complete log of this run can be found in: /tmp/x/_logs/debug-0.log`;

test("npmCause: the code, the first error line and the package the registry lacks", () => {
  expect(npmCause(NPM_404)).toEqual({ code: "E404", line: "404 Not Found - GET http://127.0.0.1:41717/agent-host - Not found", missing: "agent-host" });
  expect(npmCause("npm ERR! code EACCES\nnpm ERR! syscall open\n").code).toBe("EACCES");
  expect(npmCause("npm error 404 Not Found - GET https://r.example/@acme%2fagent-plugin-x - Not found\n").missing).toBe("@acme/agent-plugin-x");
});

describe("from a registry with no agent-host", () => {
  let registry: FakeRegistry;
  let env: Record<string, string>;
  beforeAll(async () => {
    assertBuilt();
    const work = tempDir("agent-registry-");
    registry = await startFakeRegistry(
      [{ manifest: { name: "agent-plugin-hello", version: "1.0.0", type: "module", main: "index.js", peerDependencies: { "agent-host": "^0.1.0" } }, files: { "index.js": "export default { name: 'hello', tools: [] };\n" } }],
      work,
    );
    env = { npm_config_registry: registry.url, npm_config_cache: path.join(work, "cache"), npm_config_update_notifier: "false" };
  }, 120_000);
  afterAll(() => registry?.close());

  test("the missing agent-host peer is named with npm's code, not 'no such plugin'; --legacy-peer-deps installs it", async () => {
    const p = tempProject();
    const failed = await runCli(["plugin", "add", "hello"], { cwd: p.dir, configHome: p.configHome, env, timeoutMs: 150_000 });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain("npm install agent-plugin-hello failed (E404): 404 Not Found - GET");
    expect(failed.stderr).toContain("agent-plugin-hello names agent-host as a peer dependency");
    expect(failed.stderr).toContain("agent plugin add agent-plugin-hello --legacy-peer-deps");
    expect(failed.stderr).not.toContain("Note that you can also install");
    // It did not go on to try a package named "hello": the plugin was found.
    expect(registry.requested).not.toContain("hello");

    const ok = await runCli(["plugin", "add", "hello", "--legacy-peer-deps"], { cwd: p.dir, configHome: p.configHome, env, timeoutMs: 150_000 });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("Installed agent-plugin-hello (npm install --save-dev --legacy-peer-deps agent-plugin-hello).");
    expect(JSON.parse(readFileSync(p.path(".agentrc.json"), "utf8")).plugins).toEqual(["agent-plugin-hello"]);
  });
});
