/**
 * Which sandbox works here, found once per process: bwrap must exist AND start (in an unprivileged
 * container it may exist and still fail to create namespaces), so it is run once with the flags every
 * command gets. On macOS, sandbox-exec. `AGENT_SANDBOX_BWRAP` names the bwrap binary (or a missing path,
 * to try the no-sandbox path).
 */
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { ISOLATION_FLAGS } from "./bwrap-args.js";
import { unixSocketFilterFile, withFilter } from "./seccomp.js";

/** `seccomp`: bwrap can apply the Unix-socket filter here (seccomp.ts). */
export type Detection = { kind: "bwrap"; file: string; seccomp: boolean } | { kind: "seatbelt"; file: string } | { kind: "none"; reason: string };

const SEATBELT = "/usr/bin/sandbox-exec";
/** By the bwrap named in the environment, so a test may name another in the same process. */
const cached = new Map<string, Promise<Detection>>();

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findBwrap(): string | undefined {
  const named = process.env.AGENT_SANDBOX_BWRAP;
  if (named) return executable(named) ? named : undefined;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const p = path.join(dir, "bwrap");
    if (executable(p)) return p;
  }
  return undefined;
}

function run(file: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000 }, (err, _stdout, stderr) => {
      if (!err) return resolve(undefined);
      const said = String(stderr).trim().split("\n")[0];
      resolve(said || err.message);
    });
  });
}

const PROBE = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-net", ...ISOLATION_FLAGS];

async function probeBwrap(file: string): Promise<Detection> {
  const failed = await run(file, [...PROBE, "--", "/bin/sh", "-c", ":"]);
  if (failed) return { kind: "none", reason: `bwrap (${file}) is installed but cannot create a sandbox here: ${failed}` };
  // The Unix-socket filter where the kernel takes it (a sandbox without it still holds the rest).
  const filter = unixSocketFilterFile();
  const spawn = filter && withFilter(file, [...PROBE, "--seccomp", "3", "--", "/bin/sh", "-c", ":"], filter);
  const seccomp = spawn ? (await run(spawn.file, spawn.args)) === undefined : false;
  return { kind: "bwrap", file, seccomp };
}

async function detect(): Promise<Detection> {
  if (process.platform === "linux") {
    const file = findBwrap();
    if (!file) return { kind: "none", reason: "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)" };
    return probeBwrap(file);
  }
  if (process.platform === "darwin") {
    if (!executable(SEATBELT)) return { kind: "none", reason: `${SEATBELT} is missing` };
    const failed = await run(SEATBELT, ["-p", "(version 1)(allow default)", "/usr/bin/true"]);
    return failed ? { kind: "none", reason: `sandbox-exec cannot run here: ${failed}` } : { kind: "seatbelt", file: SEATBELT };
  }
  return { kind: "none", reason: `no OS sandbox is supported on ${process.platform}` };
}

/** Detected on the first call, then the same answer for the life of the process. */
export function detectSandbox(): Promise<Detection> {
  const key = process.env.AGENT_SANDBOX_BWRAP ?? "";
  let found = cached.get(key);
  if (!found) cached.set(key, (found = detect()));
  return found;
}
