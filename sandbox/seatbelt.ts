/**
 * The same policy for macOS, as a sandbox-exec (Seatbelt) profile: everything allowed but writes
 * outside the writable folders and the private temp folder, the protected files inside them, reads of
 * the hidden paths, and the network (all of it, or all but the local proxy's port). The last rule that
 * matches decides, so the exceptions come after what they except from. Not exercised by CI (Linux).
 */
import type { SandboxMounts } from "./mounts.js";

export interface SeatbeltOptions {
  /** The private temp folder (TMPDIR), writable. */
  tmpDir: string;
  network: "none" | "all";
  /** The host list proxy's port on 127.0.0.1. */
  proxyPort?: number;
}

/** A string literal of the profile language. */
export function sbString(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

const DEVICES = ["/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty", "/dev/stdout", "/dev/stderr"];

export function seatbeltProfile(m: SandboxMounts, o: SeatbeltOptions): string {
  const sub = (p: string) => `(subpath ${sbString(p)})`;
  const lit = (p: string) => `(literal ${sbString(p)})`;
  const lines = ["(version 1)", "(allow default)", "(deny file-write*)"];
  lines.push(`(allow file-write* ${[...m.writable, o.tmpDir].map(sub).join(" ")} ${DEVICES.map(lit).join(" ")} (regex #"^/dev/ttys[0-9]+$"))`);
  if (m.readOnly.length) lines.push(`(deny file-write* ${m.readOnly.map((p) => `${lit(p)} ${sub(p)}`).join(" ")})`);
  if (m.approved?.length) lines.push(`(allow file-write* ${m.approved.map((p) => `${lit(p)} ${sub(p)}`).join(" ")})`);
  if (m.hidden.length) lines.push(`(deny file-read* file-write* ${m.hidden.map((h) => (h.dir ? sub(h.path) : lit(h.path))).join(" ")})`);
  if (o.network !== "all") {
    lines.push("(deny network*)");
    // No exception for mDNSResponder: a name lookup is a way out too (data in the name).
    if (o.proxyPort) lines.push(`(allow network-outbound (remote ip ${sbString(`localhost:${o.proxyPort}`)}))`);
  }
  return `${lines.join("\n")}\n`;
}
