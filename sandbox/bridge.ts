/**
 * Inside a bwrap sandbox with a host list there is no network but loopback: this tiny script (run by the
 * agent's own node) listens on 127.0.0.1:PROXY_PORT, passes each connection to the proxy's unix socket,
 * and starts the command once it listens, exiting as it exits. Everything dies with the sandbox.
 */
export const PROXY_PORT = 3128;

export const BRIDGE_SCRIPT = `
const net = require("net");
const { spawn } = require("child_process");
const [sock, port, file, ...args] = process.argv.slice(1);
const server = net.createServer((c) => {
  const u = net.connect(sock);
  c.pipe(u); u.pipe(c);
  c.on("error", () => u.destroy()); u.on("error", () => c.destroy());
});
server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(file, args, { stdio: "inherit" });
  child.on("error", (e) => { process.stderr.write(e.message + "\\n"); process.exit(127); });
  child.on("exit", (code, sig) => (sig ? process.kill(process.pid, sig) : process.exit(code ?? 1)));
});
`;

/** The command line that runs `command` behind the bridge. */
export function bridged(socketInside: string, command: readonly string[]): string[] {
  return [process.execPath, "-e", BRIDGE_SCRIPT, socketInside, String(PROXY_PORT), ...command];
}

/** The variables that send http(s) clients through it (curl, pip, npm, git, most SDKs; not Node's built-in fetch). */
export function proxyEnv(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: "", no_proxy: "" };
}
