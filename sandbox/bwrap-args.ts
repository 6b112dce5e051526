/**
 * The bubblewrap command line for one command. The order matters: later mounts cover earlier ones.
 * The whole file system read-only, a fresh /dev, /proc and /tmp; the writable folders bound over that
 * (after /tmp, so a workspace under /tmp stays reachable); protected files read-only over those, and
 * the ones the gate let this call write writable again; credentials hidden last. No capabilities (we may run as root, where bwrap keeps them otherwise), a
 * pid namespace that dies with bwrap (stopping bwrap's process group stops everything inside), a new
 * session (no TIOCSTI into the terminal), and no network unless it is `all`.
 */
import type { SandboxMounts } from "./mounts.js";

/** Where a host list's proxy socket folder appears inside the sandbox (under its private /tmp). */
export const PROXY_DIR_INSIDE = "/tmp/.agent-proxy";

export interface BwrapOptions {
  cwd: string;
  /** `all`: the host's network; otherwise a network namespace with only loopback. */
  network: "none" | "all";
  /** Host folder holding the proxy's socket, bound at `PROXY_DIR_INSIDE`. */
  proxyDir?: string;
  /** The Unix-socket filter (seccomp.ts) is on descriptor 3. */
  seccomp?: boolean;
}

/** The flags every sandbox uses (also the detection probe's). */
export const ISOLATION_FLAGS = ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];

export function bwrapArgs(m: SandboxMounts, o: BwrapOptions, command: readonly string[]): string[] {
  const a = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
  for (const w of m.writable) a.push("--bind-try", w, w);
  for (const r of m.readOnly) a.push("--ro-bind-try", r, r);
  for (const w of m.approved ?? []) a.push("--bind-try", w, w);
  for (const h of m.hidden) {
    if (h.dir) a.push("--tmpfs", h.path);
    else a.push("--ro-bind-try", "/dev/null", h.path);
  }
  if (o.proxyDir) a.push("--bind", o.proxyDir, PROXY_DIR_INSIDE);
  if (o.network !== "all") a.push("--unshare-net");
  if (o.seccomp) a.push("--seccomp", "3");
  a.push(...ISOLATION_FLAGS, "--chdir", o.cwd, "--", ...command);
  return a;
}
