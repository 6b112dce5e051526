/**
 * `sandbox.network` as a host list: the sandbox has no network of its own, and reaches the listed hosts
 * only through the host process's proxy (over a unix socket bound into it). Local servers on 127.0.0.1
 * stand in for the internet: `localhost` is listed, `127.0.0.1` (the same server by another name) is not.
 */
import { createServer as createNetServer, type Server as NetServer } from "node:net";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CommandSandbox, type Workspace } from "../../core/index.js";
import { createCommandSandbox } from "../../sandbox/index.js";
import { hostAllowed } from "../../sandbox/proxy.js";
import { noSandboxTest, runWrapped, sandboxHere } from "../helpers/sandbox.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

const here = await sandboxHere();

test("host patterns: exact names, and *. for subdomains only", () => {
  expect(hostAllowed("registry.npmjs.org", ["registry.npmjs.org"])).toBe(true);
  expect(hostAllowed("Registry.NPMJS.org.", ["registry.npmjs.org"])).toBe(true);
  expect(hostAllowed("evil-registry.npmjs.org", ["registry.npmjs.org"])).toBe(false);
  expect(hostAllowed("api.github.com", ["*.github.com"])).toBe(true);
  expect(hostAllowed("github.com", ["*.github.com"])).toBe(false);
  expect(hostAllowed("github.com.evil.io", ["*.github.com"])).toBe(false);
  expect(hostAllowed("evilgithub.com", ["*.github.com"])).toBe(false);
});

if (here.kind === "bwrap") describe("a host list, through the proxy", () => {
  let ws: string;
  let sandbox: CommandSandbox;
  let web: Server;
  let tls: NetServer;
  let webPort = 0;
  let tlsPort = 0;
  const seen: string[] = [];
  let tlsConnections = 0;
  const run = (cmd: string) => runWrapped(sandbox, cmd, ws);

  beforeAll(async () => {
    ws = tempProject().dir;
    const workspace = { root: ws, roots: [ws], readRoots: [], resolve: (x: string) => path.resolve(ws, x), relative: (x: string) => path.relative(ws, x) } as Workspace;
    sandbox = createCommandSandbox({ network: ["localhost"] }, workspace);
    web = createServer((req, res) => {
      seen.push(String(req.url));
      res.end(`hello from ${req.headers.host}\n`);
    });
    await new Promise<void>((r) => web.listen(0, "127.0.0.1", r));
    webPort = (web.address() as { port: number }).port;
    // Stands in for an https server: the test looks at whether the tunnel reached it, not at TLS.
    tls = createNetServer((s) => {
      tlsConnections++;
      s.destroy();
    });
    await new Promise<void>((r) => tls.listen(0, "127.0.0.1", r));
    tlsPort = (tls.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((r) => web.close(r));
    await new Promise((r) => tls.close(r));
    cleanupTemp();
  });

  test("a listed host is reached over http", async () => {
    const r = await run(`curl -sS -m 10 http://localhost:${webPort}/allowed`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`hello from localhost:${webPort}\n`);
    expect(seen).toContain("/allowed");
    expect(r.explained).toBeUndefined();
  });

  test("a host not on the list is refused, and the model is told which", async () => {
    const r = await run(`curl -sS -f -m 10 http://127.0.0.1:${webPort}/refused`);
    expect(r.code).not.toBe(0);
    expect(seen).not.toContain("/refused");
    expect(r.explained).toContain("connecting to 127.0.0.1: not in sandbox.network");
  });

  test("https goes through CONNECT: a listed host's tunnel opens, another's does not", async () => {
    const before = tlsConnections;
    await run(`curl -sS -m 10 https://localhost:${tlsPort}/`);
    expect(tlsConnections).toBe(before + 1);
    const refused = await run(`curl -sS -m 10 https://127.0.0.1:${tlsPort}/`);
    expect(tlsConnections).toBe(before + 1);
    expect(refused.explained).toContain("127.0.0.1");
  });

  test("going round the proxy finds no network", async () => {
    const r = await run(`curl -sS -m 5 --noproxy '*' http://localhost:${webPort}/direct`);
    expect(r.code).not.toBe(0);
    expect(seen).not.toContain("/direct");
  });
});

if (here.kind !== "bwrap") noSandboxTest(here);
