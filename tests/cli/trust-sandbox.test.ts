/**
 * `sandbox` in a folder the user has not trusted, through the built CLI: what narrows applies at once
 * (required, more denyRead, hooks: true, network "none"); what widens (enabled: false, allowWrite, more
 * hosts, hooks: false over the user's true) is held back as trust items until `agent trust`. And a
 * malformed `sandbox` names its file and key.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { runCli } from "../helpers/cli.js";
import { cleanupTemp, tempDir } from "../helpers/project.js";

afterAll(cleanupTemp);

interface Doctor {
  sandbox: { kind: string; reason?: string; required: boolean; hooks: boolean; policy: string };
  trust: { state: string; notLoaded: { kind: string; name: string }[] };
}

function project(folder: object, user: object): { dir: string; home: string } {
  const dir = tempDir("agent-trust-sbx-");
  const home = tempDir("agent-trust-sbx-home-");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "p", private: true }));
  writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify({ sandbox: folder }));
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(home, "config.json"), JSON.stringify({ sandbox: user }));
  return { dir, home };
}

async function doctor(p: { dir: string; home: string }): Promise<Doctor> {
  const r = await runCli(["doctor", "--json"], { cwd: p.dir, configHome: p.home, env: { AGENT_TRUST: undefined }, timeoutMs: 60_000 });
  return JSON.parse(r.stdout) as Doctor;
}

test("untrusted: the narrowing parts apply, the widening ones are held back; trusted: all apply", async () => {
  const p = project(
    { enabled: false, required: true, hooks: false, allowWrite: ["/var/tmp/agent-widened"], denyRead: ["secrets"], network: ["registry.npmjs.org", "evil.example"] },
    { hooks: true, network: ["registry.npmjs.org"] },
  );
  const before = await doctor(p);
  expect(before.trust.state).toBe("untrusted");
  expect(before.sandbox.required).toBe(true);
  expect(before.sandbox.hooks).toBe(true);
  expect(before.sandbox.reason ?? "").not.toContain("switched off");
  expect(before.sandbox.policy).toContain(`${path.join(p.dir, "secrets")} hidden`);
  expect(before.sandbox.policy).toContain("network: only registry.npmjs.org (through a local proxy)");
  expect(before.sandbox.policy).not.toContain("agent-widened");
  const held = before.trust.notLoaded.map((i) => `${i.kind}: ${i.name}`);
  expect(held).toEqual(expect.arrayContaining(["sandbox setting: enabled: false", "sandbox setting: hooks: false", "sandbox write path: /var/tmp/agent-widened", "sandbox network host: evil.example"]));
  expect(held).not.toContain("sandbox network host: registry.npmjs.org");

  const t = await runCli(["trust"], { cwd: p.dir, configHome: p.home, env: { AGENT_TRUST: undefined } });
  expect(t.code, t.stderr).toBe(0);
  const after = await doctor(p);
  expect(after.sandbox.kind).toBe("none");
  expect(after.sandbox.reason).toContain("switched off (config sandbox.enabled: false)");
  expect(after.sandbox.hooks).toBe(false);
  expect(after.sandbox.policy).toContain("/var/tmp/agent-widened");
  expect(after.sandbox.policy).toContain("evil.example");
}, 120_000);

test("untrusted: network \"none\" and required: false over the user's required: true", async () => {
  const none = await doctor(project({ network: "none" }, { network: "all" }));
  expect(none.sandbox.policy).toContain("network: none");
  expect(none.trust.notLoaded).toEqual([]);
  const loosen = await doctor(project({ required: false, network: "all" }, { required: true }));
  expect(loosen.sandbox.required).toBe(true);
  expect(loosen.sandbox.policy).toContain("network: none");
  expect(loosen.trust.notLoaded.map((i) => i.name)).toEqual(expect.arrayContaining(["required: false", "network: all"]));
}, 120_000);

test.each([
  [{ network: "some" }, "sandbox.network", 'expected "none", "all" or a list of host names'],
  [{ network: ["https://registry.npmjs.org"] }, "sandbox.network[0]", "no scheme, port or path"],
  [{ enabeld: false }, "sandbox", "enabeld"],
  [{ allowWrite: "build" }, "sandbox.allowWrite", "array"],
])("a malformed sandbox setting %j names the file and the key", async (sandbox, key, text) => {
  const dir = tempDir("agent-sbx-config-");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "p", private: true }));
  writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify({ sandbox }));
  const r = await runCli(["tools"], { cwd: dir, configHome: tempDir("agent-sbx-config-home-") });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(path.join(dir, ".agentrc.json"));
  expect(r.stderr).toContain(key);
  expect(r.stderr).toContain(text);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}, 60_000);
