/**
 * Every file agent-host writes that can hold a secret is 0600 whatever the umask: a new file under
 * `umask 000`, and an existing one that was 0644 once it is written again. Checked from outside: the
 * built CLI run from a `umask 000` shell, and the writers themselves in this test process (a child of
 * vitest's, `pool: "forks"`) with `process.umask(0)`. `.mcp.json` is the project's shared file: it keeps
 * its mode, and a new one is 0644, never writable by others.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { writeFileAtomic } from "../../kit/index.js";
import { readSession, repairSession, SessionWriter, sessionFile } from "../../plugins/sessions/store.js";
import { OAuthStore } from "../../plugins/mcp/oauth/store.js";
import { writeCachedTools } from "../../plugins/mcp/tool-cache.js";
import { ServerLog } from "../../plugins/mcp/transport/server-log.js";
import type { ServerConfig } from "../../plugins/mcp/config.js";
import { cleanEnv, type CliResult } from "../helpers/cli.js";
import { assertBuilt, DIST_CLI } from "../helpers/paths.js";
import { cleanupTemp, tempDir, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

const mode = (file: string) => statSync(file).mode & 0o777;
const octal = (file: string) => mode(file).toString(8);

/** The built CLI, started by a shell whose umask is 000 (as a careless login or container has it). */
function agentUmask0(args: string[], cwd: string, configHome: string): Promise<CliResult> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", 'umask 000; exec "$@"', "sh", process.execPath, DIST_CLI, ...args], {
      cwd,
      env: cleanEnv({ AGENT_CONFIG_HOME: configHome }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Run `fn` with the umask at 000 (this worker is a process of its own), then put it back. */
function underUmask0<T>(fn: () => T): T {
  const before = process.umask(0);
  try {
    return fn();
  } finally {
    process.umask(before);
  }
}

describe("the built CLI under umask 000", () => {
  test("agent mcp add -e TOKEN=… (local scope): .agent/settings.local.json is 0600, and a 0644 one becomes 0600", async () => {
    const p = tempProject();
    const add = await agentUmask0(["mcp", "add", "-e", "TOKEN=sk-live-umask-secret", "demo", "--", "node", "server.js"], p.dir, p.configHome);
    expect(add.code, add.stderr).toBe(0);
    const local = p.path(".agent/settings.local.json");
    expect(readFileSync(local, "utf8")).toContain("sk-live-umask-secret");
    expect(octal(local)).toBe("600");
    // No temp file left readable beside it.
    expect(readdirSync(p.path(".agent")).filter((f) => f.includes(".tmp"))).toEqual([]);

    // A file an older version (or the user) left 0644: rewritten, it is 0600.
    chmodSync(local, 0o644);
    const again = await agentUmask0(["mcp", "add", "-e", "OTHER=sk-live-second", "second", "--", "node", "s2.js"], p.dir, p.configHome);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(local, "utf8")).toContain("sk-live-second");
    expect(octal(local)).toBe("600");
  });

  test("agent mcp add -s user: the user config is 0600 (new, and a 0644 one rewritten)", async () => {
    const p = tempProject();
    const home = path.join(tempDir(), "fresh-config-home");
    const add = await agentUmask0(["mcp", "add", "-s", "user", "-e", "TOKEN=sk-user-scope", "demo", "--", "node", "server.js"], p.dir, home);
    expect(add.code, add.stderr).toBe(0);
    const file = path.join(home, "config.json");
    expect(readFileSync(file, "utf8")).toContain("sk-user-scope");
    expect(octal(file)).toBe("600");
    // The folder it made is this user's only.
    expect(octal(home)).toBe("700");

    const q = tempProject();
    const existing = path.join(q.configHome, "config.json");
    writeFileSync(existing, '{ "maxTurns": 9 }\n');
    chmodSync(existing, 0o644);
    const second = await agentUmask0(["mcp", "add", "-s", "user", "-H", "Authorization: Bearer sk-header-secret", "remote", "https://example.com/mcp"], q.dir, q.configHome);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(existing, "utf8")).toContain("sk-header-secret");
    expect(octal(existing)).toBe("600");
  });

  test("agent mcp add -s project: .mcp.json is the shared file, 0644 when new (never writable by others), an existing one keeps its mode", async () => {
    const p = tempProject();
    const add = await agentUmask0(["mcp", "add", "-s", "project", "-e", "TOKEN=${TOKEN}", "demo", "--", "node", "server.js"], p.dir, p.configHome);
    expect(add.code, add.stderr).toBe(0);
    const file = p.path(".mcp.json");
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers.demo.env).toEqual({ TOKEN: "${TOKEN}" });
    expect(octal(file)).toBe("644");

    chmodSync(file, 0o640);
    const again = await agentUmask0(["mcp", "add", "-s", "project", "other", "--", "node", "other.js"], p.dir, p.configHome);
    expect(again.code, again.stderr).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers)).toEqual(["demo", "other"]);
    expect(octal(file)).toBe("640");
  });

  test("the audit log is 0600 when agent call creates it, and an old 0644 one is narrowed before it is appended to", async () => {
    const p = tempProject({ "notes.txt": "hello\n" });
    const call = await agentUmask0(["call", "read_file", '{"path":"notes.txt"}'], p.dir, p.configHome);
    expect(call.code, call.stderr).toBe(0);
    expect(readFileSync(p.auditFile, "utf8")).toContain('"name":"read_file"');
    expect(octal(p.auditFile)).toBe("600");

    chmodSync(p.auditFile, 0o644);
    const before = readFileSync(p.auditFile, "utf8").length;
    const again = await agentUmask0(["call", "read_file", '{"path":"notes.txt"}'], p.dir, p.configHome);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(p.auditFile, "utf8").length).toBeGreaterThan(before);
    expect(octal(p.auditFile)).toBe("600");
  });
});

describe("the writers themselves, with process.umask(0)", () => {
  afterEach(() => expect(process.umask()).not.toBe(0));

  test("writeFileAtomic: an exact mode for a new and an existing file; without one an existing file keeps its mode; { shared } caps a new one", () => {
    const dir = tempDir("agent-secret-");
    const secret = path.join(dir, "secret.json");
    underUmask0(() => writeFileAtomic(secret, "{}\n", 0o600));
    expect(octal(secret)).toBe("600");
    chmodSync(secret, 0o644);
    underUmask0(() => writeFileAtomic(secret, '{"a":1}\n', 0o600));
    expect(octal(secret)).toBe("600");

    const kept = path.join(dir, "kept.txt");
    writeFileSync(kept, "x");
    chmodSync(kept, 0o640);
    underUmask0(() => writeFileAtomic(kept, "y"));
    expect([readFileSync(kept, "utf8"), octal(kept)]).toEqual(["y", "640"]);

    const shared = path.join(dir, "shared.json");
    underUmask0(() => writeFileAtomic(shared, "{}", { shared: 0o644 }));
    expect(octal(shared)).toBe("644");

    // A link planted where the temp file goes is removed, not written through.
    const target = path.join(dir, "victim.txt");
    writeFileSync(target, "untouched");
    symlinkSync(target, `${secret}.${process.pid}.tmp`);
    underUmask0(() => writeFileAtomic(secret, "new", 0o600));
    expect(readFileSync(target, "utf8")).toBe("untouched");
    expect([readFileSync(secret, "utf8"), octal(secret)]).toEqual(["new", "600"]);
    expect(readdirSync(dir).sort()).toEqual(["kept.txt", "secret.json", "shared.json", "victim.txt"]);
  });

  test("session transcripts: a new one is 0600 in a 0700 folder; a 0644 one (and a 0755 folder) is narrowed on the next append; a repaired one and its .damaged copy are 0600", () => {
    const p = tempProject();
    const w = new SessionWriter(p.dir, "s-umask");
    underUmask0(() => w.append([{ type: "meta", id: "s-umask", started: new Date().toISOString(), cwd: p.dir, version: "test" } as never]));
    w.close();
    const file = sessionFile(p.dir, "s-umask");
    expect(octal(file)).toBe("600");
    expect(octal(path.dirname(file))).toBe("700");

    chmodSync(file, 0o644);
    chmodSync(path.dirname(file), 0o755);
    const w2 = new SessionWriter(p.dir, "s-umask");
    underUmask0(() => w2.append([{ type: "message", time: new Date().toISOString(), message: { role: "user", content: "my token is sk-in-transcript" } } as never]));
    w2.close();
    expect(readFileSync(file, "utf8")).toContain("sk-in-transcript");
    expect(octal(file)).toBe("600");
    expect(octal(path.dirname(file))).toBe("700");

    // A damaged tail, repaired: both files 0600, even from a 0644 original.
    writeFileSync(file, `${readFileSync(file, "utf8")}{"type":"message","mess`);
    chmodSync(file, 0o644);
    const loaded = readSession(file);
    underUmask0(() => repairSession(file, loaded as never));
    expect(octal(file)).toBe("600");
    expect(octal(`${file}.damaged`)).toBe("600");
  });

  test("the OAuth token store: 0600 in a 0700 folder, a 0644 token file narrowed when tokens are saved again", () => {
    const home = tempDir("agent-oauth-home-");
    const store = new OAuthStore(home, "https://mcp.example.com/mcp", () => {}, "test");
    underUmask0(() => store.update((d) => void (d.tokens = { access_token: "at-secret-1", token_type: "Bearer" })));
    expect(readFileSync(store.file, "utf8")).toContain("at-secret-1");
    expect(octal(store.file)).toBe("600");
    expect(octal(path.dirname(store.file))).toBe("700");
    chmodSync(store.file, 0o644);
    underUmask0(() => store.update((d) => void (d.tokens = { access_token: "at-secret-2", token_type: "Bearer" })));
    expect(readFileSync(store.file, "utf8")).toContain("at-secret-2");
    expect(octal(store.file)).toBe("600");
  });

  test("the MCP tool cache: 0600 in a 0700 folder, an old 0644 entry narrowed when it is written again", () => {
    const dir = path.join(tempDir("agent-cache-"), "cache", "mcp");
    const config = { name: "demo" } as ServerConfig;
    const entry = { key: "k1", savedAt: new Date().toISOString(), resources: false, tools: [] };
    underUmask0(() => writeCachedTools(dir, config, entry));
    const [file] = readdirSync(dir);
    expect(file).toMatch(/^demo-[0-9a-f]{8}\.json$/);
    expect(octal(path.join(dir, file!))).toBe("600");
    expect(octal(dir)).toBe("700");
    chmodSync(path.join(dir, file!), 0o644);
    underUmask0(() => writeCachedTools(dir, config, { ...entry, key: "k2" }));
    expect(readFileSync(path.join(dir, file!), "utf8")).toContain('"k2"');
    expect(octal(path.join(dir, file!))).toBe("600");
    expect(readdirSync(dir)).toEqual([file]);
  });

  test("an MCP server's log: 0600 when new, an old 0644 one narrowed before it is appended to", () => {
    const dir = tempDir("agent-serverlog-");
    const file = path.join(dir, "logs", "demo.log");
    const first = new ServerLog(file);
    underUmask0(() => first.note("started"));
    first.close();
    expect(octal(file)).toBe("600");
    chmodSync(file, 0o644);
    const again = new ServerLog(file);
    underUmask0(() => again.note("started again"));
    again.close();
    expect(octal(file)).toBe("600");
    expect(readFileSync(file, "utf8")).toContain("started again");
  });

  test("local settings written by the permission prompt's 'always for this project' (addLocalAllowRules) are 0600 too", async () => {
    const { addLocalAllowRules } = await import("../../core/embed.js");
    const p = tempProject();
    mkdirSync(p.path(".agent"));
    writeFileSync(p.path(".agent/settings.local.json"), '{ "env": { "API_KEY": "sk-env-in-local" } }\n');
    chmodSync(p.path(".agent/settings.local.json"), 0o644);
    underUmask0(() => addLocalAllowRules(p.dir, ["read_file"]));
    expect(octal(p.path(".agent/settings.local.json"))).toBe("600");
    expect(existsSync(p.path(".agent/.gitignore"))).toBe(true);
  });
});
