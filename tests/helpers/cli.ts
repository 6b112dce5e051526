/** Run the built `agent` CLI (`node dist/cli.js`) as a child process. */
import { spawn } from "node:child_process";
import { DIST_CLI, assertBuilt } from "./paths.js";

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  /** Working folder (the project). */
  cwd: string;
  /** The user config folder; required so the real `~/.config/agent` never leaks in. */
  configHome: string;
  env?: Record<string, string | undefined>;
  /** Written to stdin (stdin is closed either way, so the CLI never waits for a terminal). */
  input?: string;
  /** Kill the child after this long (a hung CLI fails the test instead of hanging it). */
  timeoutMs?: number;
  /** The file node runs; default dist/cli.js (DIST_BIN: the package's `agent` bin). */
  entry?: string;
}

/** Environment for the child: no AGENT_* or CI variables from the outer shell (but AGENT_TRUST=1), colors off. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("AGENT_") || k === "CI" || k.startsWith("VITEST") || k === "NODE_OPTIONS") continue;
    env[k] = v;
  }
  env.NO_COLOR = "1";
  // A test's project is the user's own, trusted; the trust tests pass AGENT_TRUST: undefined.
  env.AGENT_TRUST = "1";
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runCli(args: string[], options: RunCliOptions): Promise<CliResult> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.entry ?? DIST_CLI, ...args], {
      cwd: options.cwd,
      env: cleanEnv({ AGENT_CONFIG_HOME: options.configHome, ...options.env }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    // A hung CLI fails the test; a slow one (a loaded machine) is not a hung one.
    const timeoutMs = options.timeoutMs ?? 110_000;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`agent ${args.join(" ")} did not finish within ${timeoutMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (/Cannot find module '[^']*\/dist\/|ERR_MODULE_NOT_FOUND[\s\S]*\/dist\//.test(stderr)) {
        // Not a CLI bug: the build went missing under the test (e.g. `npm run build` ran meanwhile).
        reject(new Error(`the build in dist/ changed or vanished while "agent ${args.join(" ")}" ran; rerun after npm run build.\n${stderr}`));
        return;
      }
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on("error", () => {}); // the CLI may exit before reading stdin
    child.stdin.end(options.input ?? "");
  });
}
