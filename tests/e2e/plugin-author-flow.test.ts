/**
 * The README's "Writing a plugin" flow through a registry, command for command, as an author and a user
 * meet it: a global `agent` (agent-host packed from this repository and installed outside any project,
 * on PATH), `agent plugin new hello`, `npm install`, `npm adduser` (answered on a pseudo-terminal),
 * `npm publish` (prepublishOnly builds and tests), then in a project with no agent-host `npm config set
 * registry`, `agent plugin add hello` and `agent call hello_greet`. The registry is the small one on
 * 127.0.0.1 (tests/helpers/fake-registry.ts), standing in for the verdaccio the README names (that run is
 * recorded in the README); it has no agent-host, as the public registry has none. No AGENT_TRUST: the
 * folder's trust is part of the flow. npm installs from its cache (CI's `npm ci` fills it). The global
 * agent-host is the install the e2e files share (./_host.ts), copied into this test's folder.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, test } from "vitest";
import { cleanEnv } from "../helpers/cli.js";
import { startFakeRegistry, type FakeRegistry } from "../helpers/fake-registry.js";
import { assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempDir } from "../helpers/project.js";
import { copyInstalledHost, installedHost } from "./_host.js";
import { exec, type ExecResult } from "./_npm.js";

const T = 300_000; // npm installs, a tsup build and an inner vitest run: minutes on a loaded 2-core machine
let work: string;
let registry: FakeRegistry;
let env: NodeJS.ProcessEnv;
let globalAgent: string;

beforeAll(async () => {
  assertBuilt();
  work = tempDir("agent-e2e-author-");
  registry = await startFakeRegistry([], path.join(work, "registry"));
  // "npm install -g agent-host-<v>.tgz": agent-host and its dependencies in a prefix of their own.
  const prefix = path.join(work, "global");
  copyInstalledHost(await installedHost(), prefix);
  globalAgent = path.join(prefix, "node_modules/.bin");
  const home = path.join(work, "home");
  mkdirSync(path.join(home, "config"), { recursive: true });
  env = cleanEnv({
    AGENT_TRUST: undefined,
    AGENT_CONFIG_HOME: path.join(home, "config"),
    // The author's and the user's npm settings (adduser's token) go to a home of their own; the cache stays.
    HOME: home,
    npm_config_cache: process.env.npm_config_cache ?? path.join(os.homedir(), ".npm"),
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    PATH: `${globalAgent}${path.delimiter}${process.env.PATH}`,
  });
}, T);

afterAll(async () => {
  await registry?.close();
  cleanupTemp();
});

/** One command line of the README, by the shell, as the user types it. */
async function sh(line: string, cwd: string): Promise<ExecResult> {
  const r = await exec("sh", ["-c", line], { cwd, env, timeoutMs: T });
  if (r.code !== 0) throw new Error(`${line} (in ${cwd}) exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** `npm adduser` on a pseudo-terminal (util-linux `script`): it asks a name, a password and an e-mail. */
function adduser(cwd: string, registryUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qefc", `npm adduser --registry ${registryUrl}`, "/dev/null"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const answers: [RegExp, string][] = [
      [/Username: *$/, "ada\r"],
      [/Password: *$/, "ada-secret-1\r"],
      [/Email.*: *$/, "ada@example.com\r"],
    ];
    let screen = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      screen += d;
      // eslint-disable-next-line no-control-regex
      const plain = screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
      if (answers.length && answers[0][0].test(plain)) {
        child.stdin.write(answers.shift()![1]);
        screen = "";
      }
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(screen) : reject(new Error(`npm adduser exited ${code}: ${screen}`))));
  });
}

test(
  "README, Writing a plugin: from agent plugin new to the tool running through the gate, installed by name from a registry",
  async () => {
    const url = registry.url.replace(/\/$/, "");
    const authorDir = path.join(work, "author");
    const plugin = path.join(authorDir, "agent-plugin-hello");
    const project = path.join(authorDir, "my-project");
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "my-project", private: true }, null, 2));

    // 1. agent plugin new hello — the global agent, not this repository's.
    expect(realpathSync(path.join(globalAgent, "agent"))).toBe(path.join(work, "global/node_modules/agent-host/dist/cli.cjs"));
    await sh("agent plugin new hello", authorDir);
    // 2. cd agent-plugin-hello && npm install: agent-host linked by the lock to the global copy.
    await sh("npm install", plugin);
    expect(realpathSync(path.join(plugin, "node_modules/agent-host"))).toBe(path.join(work, "global/node_modules/agent-host"));
    // 3. npm adduser --registry <url>
    await adduser(plugin, url);
    expect(registry.users).toEqual(["ada"]);
    // 4. npm publish --registry <url>: prepublishOnly builds and tests it first.
    const published = await sh(`npm publish --registry ${url}`, plugin);
    expect(published.stdout + published.stderr).toMatch(/Tests\s+\d+ passed/);
    const sent = registry.published.get("agent-plugin-hello");
    expect(sent, published.stderr).toBeDefined();
    // The published manifest carries the ranges, never the author's path to agent-host.
    expect(sent!.manifest).toMatchObject({ peerDependencies: { "agent-host": "^0.1.0" }, peerDependenciesMeta: { "agent-host": { optional: true } } });
    expect((sent!.manifest.devDependencies as Record<string, string>)["agent-host"]).toBe("^0.1.0");
    for (const field of ["dependencies", "devDependencies", "peerDependencies"]) expect(JSON.stringify(sent!.manifest[field] ?? {})).not.toContain("file:");
    expect(JSON.stringify(sent!.manifest)).not.toContain(work);
    // The tarball's files (its package.json among them), unzipped: no path of the author's machine.
    expect(gunzipSync(sent!.tarball).includes(Buffer.from(work))).toBe(false);

    // 5. cd ../my-project && npm config set registry <url> --location=project
    await sh(`npm config set registry ${url} --location=project`, project);
    // 6. agent plugin add hello: npm installs agent-plugin-hello by name; the folder is trusted for it.
    const added = await sh("agent plugin add hello", project);
    expect(added.stdout).toContain("Installed agent-plugin-hello");
    expect(added.stdout).toContain("agent-plugin-hello is all this folder runs that was not trusted, so the folder is trusted for it");
    expect(JSON.parse(readFileSync(path.join(project, ".agentrc.json"), "utf8"))).toEqual({ plugins: ["agent-plugin-hello"] });
    // No agent-host in the project: the global agent provides it.
    expect(existsSync(path.join(project, "node_modules/agent-host"))).toBe(false);
    // npm asked the registry for the optional peer, had a 404, and went on without it.
    // 7. agent call hello_greet '{"name":"Ada"}': through the gate.
    const called = await sh(`agent call hello_greet '{"name":"Ada"}'`, project);
    expect(called.stdout).toBe("Hello, Ada!\n");
    expect(called.stderr).toBe("");
  },
  T * 2,
);
