/**
 * What the sandbox stopped, read off a finished command's output, for the model: the write it refused
 * (with the path when the message names one), the connection, a hidden credential, and the config key
 * that would allow it, so the model asks the user instead of trying another way round.
 */
import path from "node:path";
import { isInside as within } from "../kit/fs/path-inside.js";
import type { SandboxMounts } from "./mounts.js";
import type { SandboxNetwork } from "./settings.js";

export interface ExplainContext {
  mounts: SandboxMounts;
  /** The command's folder, for relative paths in messages. */
  cwd: string;
  network: SandboxNetwork;
  /** Hosts the proxy refused during the command. */
  refused: readonly string[];
}

const READ_ONLY = /read-only file system|Errno 30\b/i;
/** `socket(AF_UNIX)` refused by the seccomp filter (seccomp.ts), as node, python and curl word it. */
const NO_UNIX_SOCKET = /connect EPERM|socket: Operation not permitted|\[Errno 1\] Operation not permitted|Couldn't connect to server|Operation not permitted/;
const NO_NETWORK = /could not resolve host|temporary failure in name resolution|name or service not known|EAI_AGAIN|ENETUNREACH|network is unreachable|ENOTFOUND|getaddrinfo|could not resolve|nodename nor servname/i;

/** The path a refusal line names: 'quoted' (coreutils, python, node), or `bash: line 1: /path: Read-only file system`. */
function pathOf(line: string): string | undefined {
  const quoted = /['"‘“`]([^'"’”`]+)['"’”`]/.exec(line)?.[1];
  return quoted ?? /(?:^|: )([^:]+): Read-only file system/i.exec(line)?.[1];
}


function refusedWrites(stderr: string, m: SandboxMounts, cwd: string): string[] {
  const out: string[] = [];
  for (const line of stderr.split("\n").filter((l) => READ_ONLY.test(l))) {
    const p = pathOf(line);
    const where = !p
      ? "a file outside the folders commands may write"
      : m.readOnly.some((r) => within(path.resolve(cwd, p), r))
        ? `${p} (a protected file: write_file and edit_file may write it, asking the user)`
        : p;
    if (!out.includes(where)) out.push(where);
  }
  return out;
}

function hiddenNamed(text: string, m: SandboxMounts): string[] {
  return m.hidden.map((h) => h.path).filter((h) => text.includes(h));
}

export function explainRefusal(r: { stdout: string; stderr: string; exitCode: number | null }, c: ExplainContext): string | undefined {
  const text = `${r.stderr}\n${r.stdout}`;
  // A command that succeeded may mention names and errors; only a failed one is read for them.
  const failed = r.exitCode !== 0;
  const lines: string[] = [];
  const writes = refusedWrites(text, c.mounts, c.cwd);
  if (writes.length) lines.push(`writing ${writes.join(", ")}: commands may write only the workspace, /tmp (private to the command) and sandbox.allowWrite`);
  if (c.refused.length) lines.push(`connecting to ${c.refused.join(", ")}: not in sandbox.network`);
  else if (failed && c.network === "none" && NO_NETWORK.test(text)) lines.push('a network connection: the sandbox has no network (sandbox.network is "none"; a list of hosts or "all" would allow it)');
  else if (failed && c.network === "none" && NO_UNIX_SOCKET.test(text)) lines.push("a connection to a Unix socket: the sandbox closes them with the network (sandbox.network \"all\" would open them)");
  const hidden = failed ? hiddenNamed(text, c.mounts) : [];
  if (hidden.length) lines.push(`reading ${hidden.join(", ")}: credentials are hidden from commands (empty in the sandbox)`);
  if (!lines.length) return undefined;
  return `[sandbox] The OS sandbox refused ${lines.join("; ")}. Do not work around it: ask the user, who can change the config key named.`;
}
