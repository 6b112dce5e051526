/**
 * A host given no OS sandbox (`createHost` without `sandbox`: the kernel has none of its own): commands run
 * as they are, the first result says so, and `sandbox.required` refuses them instead, as where bwrap fails.
 */
import { afterAll, expect, test } from "vitest";
import { createHost, type Host } from "../../core/index.js";
import toolsPlugin from "../../plugins/tools/index.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

const hosts: Host[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  cleanupTemp();
});

async function bareHost(config: Record<string, unknown> = {}): Promise<Host> {
  const p = tempProject();
  const h = await createHost({ cwd: p.dir, userConfigDir: false, loadConfigFiles: false, builtins: [{ name: "tools", load: async () => toolsPlugin }], permissionMode: "bypass", config });
  hosts.push(h);
  return h;
}

test("without a sandbox, commands run unsandboxed and the first result says so, once", async () => {
  const h = await bareHost();
  const first = await h.tools.call("run_command", { command: "echo one" });
  expect(first.ok).toBe(true);
  expect(first.output).toContain("[sandbox] Commands run without an OS sandbox: this host was given no OS sandbox");
  expect((first.structured as { sandbox: string }).sandbox).toBe("none");
  const second = await h.tools.call("run_command", { command: "echo two" });
  expect(second.output).toContain("two");
  expect(second.output).not.toContain("[sandbox]");
});

test("sandbox.required refuses every command of a host given no sandbox, naming the key", async () => {
  const h = await bareHost({ sandbox: { required: true } });
  const r = await h.tools.call("run_command", { command: "echo should-not-run" });
  expect(r.ok).toBe(false);
  expect(r.output).toContain("config sandbox.required is set and no OS sandbox works here");
  expect(r.output).not.toContain("should-not-run\n");
});
