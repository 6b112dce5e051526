/**
 * The sandbox tried as an attacker would: each row is a command a model could be talked into, run the
 * way run_command runs it (`ctx.sandbox.wrap`, bash -c, in the workspace), and what must then be true on
 * the host. The fake home, the "outside" folder and the host server live outside /tmp (the sandbox's
 * /tmp is its own, which would make those rows pass for the wrong reason); the workspace lives in /tmp.
 *
 * | Attempt                                         | Expected                                     |
 * |-------------------------------------------------|----------------------------------------------|
 * | write in the home folder                        | EROFS; no file on the host                   |
 * | write /etc, /usr                                | EROFS                                        |
 * | write the host's /tmp                           | lands in the private /tmp; host /tmp clean   |
 * | write outside through a symlink in the workspace| EROFS                                        |
 * | write `../` of the workspace                    | EROFS                                        |
 * | append to .git/config, .git/hooks/, .mcp.json,  | EROFS; files unchanged                       |
 * |   agent.config.mjs, .agent/, .claude/ (python)  |                                              |
 * | rm -rf / mv a protected folder                  | refused (busy or read-only); still there     |
 * | read ~/.ssh/id_rsa, ~/.aws/credentials, ~/.netrc| empty or missing, never the secret           |
 * | read the agent's trusted-folders.json, tokens   | missing                                      |
 * | connect to a server on the host's 127.0.0.1     | fails; the server sees nothing               |
 * | connect to a Unix socket on the host (a daemon's| EPERM (seccomp); the server sees nothing;    |
 * |   socket file: docker.sock, a bus) with node,   |   the model is told; pipes still work        |
 * |   python, curl --unix-socket                    |                                              |
 * | write through /proc/1/root, /proc/<host pid>    | EROFS / no such process                      |
 * | mount over a folder, remount / read-write       | permission denied (no capabilities)          |
 * | node -e / python3 -c writing outside            | EROFS                                        |
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CommandSandbox, type Workspace } from "../../core/index.js";
import { createCommandSandbox } from "../../sandbox/index.js";
import { noSandboxTest, runWrapped, sandboxHere } from "../helpers/sandbox.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

const here = await sandboxHere();
const PY = ["/usr/bin/python3", "/bin/python3"].find((p) => existsSync(p));

/** A folder outside /tmp (see the header). */
function varTemp(prefix: string): string {
  const base = existsSync("/var/tmp") ? "/var/tmp" : path.dirname(process.cwd());
  return mkdtempSync(path.join(base, prefix));
}

if (here.kind === "bwrap") describe("the sandbox, attacked", () => {
  let ws: string;
  let home: string;
  let agentHome: string;
  let outside: string;
  let sandbox: CommandSandbox;
  let server: Server;
  let port = 0;
  let hits = 0;
  const saved = { HOME: process.env.HOME, AGENT_CONFIG_HOME: process.env.AGENT_CONFIG_HOME };
  const env = () => ({ ...process.env, HOME: home, AGENT_CONFIG_HOME: agentHome });
  const run = (cmd: string) => runWrapped(sandbox, cmd, ws, env());

  beforeAll(async () => {
    home = varTemp("agent-sbx-home-");
    agentHome = path.join(home, ".config", "agent");
    outside = varTemp("agent-sbx-outside-");
    writeFileSync(path.join(outside, "victim.txt"), "original\n");
    const secret = (rel: string, text: string) => {
      mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
      writeFileSync(path.join(home, rel), text);
    };
    secret(".ssh/id_rsa", "FAKE-SSH-PRIVATE-KEY\n");
    secret(".aws/credentials", "[default]\naws_secret_access_key=FAKE-AWS-SECRET\n");
    secret(".netrc", "machine example.com password FAKE-NETRC\n");
    secret(".config/agent/trusted-folders.json", '{"FAKE-TRUST":1}\n');
    secret(".config/agent/mcp-oauth/github.json", '{"access_token":"FAKE-OAUTH-TOKEN"}\n');
    process.env.HOME = home;
    process.env.AGENT_CONFIG_HOME = agentHome;
    const p = tempProject({ ".git/config": "[core]\n", ".git/hooks/pre-commit": "#!/bin/sh\n", ".mcp.json": "{}\n", "agent.config.mjs": "export default {}\n", ".agent/settings.json": "{}\n", ".claude/settings.json": "{}\n" });
    ws = p.dir;
    symlinkSync(outside, path.join(ws, "out-link"));
    const workspace = { root: ws, roots: [ws], readRoots: [], resolve: (x: string) => path.resolve(ws, x), relative: (x: string) => path.relative(ws, x) } as Workspace;
    sandbox = createCommandSandbox({}, workspace);
    server = createServer((_req, res) => {
      hits++;
      res.end("reached\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });

  afterAll(async () => {
    process.env.HOME = saved.HOME;
    process.env.AGENT_CONFIG_HOME = saved.AGENT_CONFIG_HOME;
    await new Promise((r) => server.close(r));
    rmSync(home, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
    cleanupTemp();
  });

  test("the workspace itself is writable (and the command sees it where it lives, under /tmp)", async () => {
    const r = await run("echo made > made.txt && cat made.txt");
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(ws, "made.txt"), "utf8")).toBe("made\n");
  });

  const writes: [string, () => string, () => string][] = [
    ["home folder", () => `echo x > "$HOME/pwned"`, () => path.join(home, "pwned")],
    ["/etc", () => "echo x > /etc/agent-sbx-pwned", () => "/etc/agent-sbx-pwned"],
    ["/usr", () => "touch /usr/agent-sbx-pwned", () => "/usr/agent-sbx-pwned"],
    ["a folder outside", () => `echo x > ${outside}/pwned`, () => path.join(outside, "pwned")],
    ["a symlink in the workspace to outside", () => "echo x > out-link/pwned", () => path.join(outside, "pwned")],
    // The workspace is in /tmp: its `..` is the sandbox's own /tmp, where the write lands and stays.
    ["the workspace's ..", () => "echo x > ../agent-sbx-dotdot-pwned", () => path.join(path.dirname(ws), "agent-sbx-dotdot-pwned")],
    ["..s up to / and down into /etc", () => `echo x > ${"../".repeat(12)}etc/agent-sbx-dotdot-pwned`, () => "/etc/agent-sbx-dotdot-pwned"],
    ["/proc/1/root", () => `echo x > /proc/1/root${outside}/pwned`, () => path.join(outside, "pwned")],
    [`the host's /proc/${process.pid}/root`, () => `echo x > /proc/${process.pid}/root${outside}/pwned`, () => path.join(outside, "pwned")],
    ["node -e", () => `${process.execPath} -e 'require("fs").writeFileSync(${JSON.stringify(outside + "/node-pwned")}, "x")'`, () => path.join(outside, "node-pwned")],
    ...(PY ? [["python3 -c", () => `${PY} -c 'open(${JSON.stringify(outside + "/py-pwned")}, "w").write("x")'`, () => path.join(outside, "py-pwned")] as [string, () => string, () => string]] : []),
  ];
  test.each(writes)("writing outside through %s is refused", async (_name, cmd, target) => {
    const r = await run(cmd());
    if (!cmd().startsWith("echo x > ../a")) expect(r.code).not.toBe(0);
    expect(existsSync(target())).toBe(false);
    expect(readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("original\n");
  });

  test("the refusal is explained to the model, with the path and the key that would allow it", async () => {
    const r = await run(`echo x > ${outside}/pwned`);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(r.explained).toContain(`${outside}/pwned`);
    expect(r.explained).toContain("sandbox.allowWrite");
  });

  test("the host's /tmp is not the sandbox's: a file written there stays inside", async () => {
    const name = `agent-sbx-tmp-${process.pid}-${Date.now()}`;
    const r = await run(`echo x > /tmp/${name} && cat /tmp/${name} && echo "$TMPDIR"`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("x\n/tmp\n");
    expect(existsSync(`/tmp/${name}`)).toBe(false);
  });

  const protectedFiles = [".git/config", ".git/hooks/pre-commit", ".mcp.json", "agent.config.mjs", ".agent/settings.json", ".claude/settings.json"];
  test.each(protectedFiles)("%s in the workspace stays as it is (a program the gate cannot read)", async (rel) => {
    const before = readFileSync(path.join(ws, rel), "utf8");
    const r = await run(`${process.execPath} -e 'require("fs").appendFileSync(${JSON.stringify(rel)}, "pwned")'`);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/EROFS|read-only/i);
    expect(r.explained).toContain("a protected file");
    expect(readFileSync(path.join(ws, rel), "utf8")).toBe(before);
  });

  test("protected folders cannot be removed or moved aside and replaced", async () => {
    const r = await run("rm -rf .claude .agent .git/hooks; mv .claude c2; mv .git/hooks h2; mkdir -p .claude && echo pwned > .claude/settings.json");
    expect(r.code).not.toBe(0);
    expect(readFileSync(path.join(ws, ".claude/settings.json"), "utf8")).toBe("{}\n");
    expect(existsSync(path.join(ws, ".git/hooks/pre-commit"))).toBe(true);
    expect(existsSync(path.join(ws, "c2"))).toBe(false);
  });

  const secrets: [string, string][] = [
    ["~/.ssh/id_rsa", "FAKE-SSH-PRIVATE-KEY"],
    ["~/.aws/credentials", "FAKE-AWS-SECRET"],
    ["~/.netrc", "FAKE-NETRC"],
    ["~/.config/agent/trusted-folders.json", "FAKE-TRUST"],
    ["~/.config/agent/mcp-oauth/github.json", "FAKE-OAUTH-TOKEN"],
  ];
  test.each(secrets)("%s cannot be read (it can outside the sandbox)", async (file, secret) => {
    const real = file.replace("~", home);
    expect(readFileSync(real, "utf8")).toContain(secret);
    const r = await run(`cat ${real}; cat /proc/1/root${real}; grep -r FAKE ${home} 2>/dev/null`);
    expect(`${r.stdout}${r.stderr}`).not.toContain(secret);
  });

  test("a server on the host's 127.0.0.1 cannot be reached (network none)", async () => {
    const control = await promisify(execFile)("curl", ["-sS", "-m", "5", `http://127.0.0.1:${port}/`], { encoding: "utf8" });
    expect(control.stdout).toBe("reached\n");
    const before = hits;
    const py = PY ? `; ${PY} -c 'import socket; socket.create_connection(("127.0.0.1", ${port}), 3)'` : "";
    const r = await run(`curl -sS -m 5 http://127.0.0.1:${port}/; ${process.execPath} -e 'require("net").connect(${port}, "127.0.0.1").on("error", (e) => { console.error(e.code); process.exit(1); })'${py}`);
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toContain("reached");
    expect(hits).toBe(before);
  });

  test("a Unix socket on the host cannot be reached (network none): no socket(AF_UNIX) inside", async () => {
    const sock = path.join(outside, "daemon.sock");
    let seen = 0;
    const daemon = createNetServer((c) => {
      seen++;
      c.end("reached\n");
    });
    await new Promise<void>((r) => daemon.listen(sock, r));
    try {
      const py = PY ? `; ${PY} -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("${sock}"); print(s.recv(9))'` : "";
      const r = await run(`${process.execPath} -e 'require("net").connect("${sock}").on("data", (d) => console.log(String(d))).on("error", (e) => { console.error(e.code); process.exit(1); })'; curl -sS --unix-socket ${sock} http://x/${py}`);
      expect(r.stdout).not.toContain("reached");
      expect(seen).toBe(0);
      expect(r.stdout + r.stderr).toContain("EPERM");
      expect(r.explained).toContain("a connection to a Unix socket");
      // Pipes between processes (socketpair) still work: node's child processes use them.
      const pipes = await run(`${process.execPath} -e 'process.stdout.write(require("child_process").spawnSync("echo", ["piped"]).stdout)'`);
      expect(pipes.stdout).toBe("piped\n");
    } finally {
      await new Promise((r) => daemon.close(r));
    }
  });

  test("mounting is refused: no capabilities, even when the host runs as root", async () => {
    const r = await run(`mount -t tmpfs none ${outside}; mount -o remount,rw /; echo x > /etc/agent-sbx-mount-pwned; grep CapEff /proc/self/status`);
    expect(r.stdout).toMatch(/CapEff:\s+0+\n/);
    expect(existsSync("/etc/agent-sbx-mount-pwned")).toBe(false);
    expect(readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("original\n");
  });
});

if (here.kind !== "bwrap") noSandboxTest(here);
