/**
 * One log file per server (`.agent/logs/mcp-<server>.log`, or the user's state folder when the project has no
 * `.agent/`: `logFileFor`): a stdio server's stderr, noise it
 * printed on stdout, and client-side errors. Never the user's terminal, never the protocol channel.
 * Writes are synchronous appends, so the tail survives a crash. The file is kept under MAX_LOG_BYTES
 * while the server runs: when a write would pass it, the file becomes `.log.1` (replacing the older
 * one) and a new one starts, so a chatty server costs at most twice that on disk. Everything written
 * is redacted first (secrets the user gave servers in `env` / `headers`, tokens by shape), a line at a
 * time, so a secret split across two reads of stderr is still caught.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, renameSync, writeSync } from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
// A server may print its tokens: the log is 0600 whatever the umask, an older 0644 one narrowed.
import { openPrivateAppend, projectFolderName, redactString, userStateDir } from "../../../kit/index.js";

export const MAX_LOG_BYTES = 1024 * 1024;
/** A partial line longer than this is written without waiting for its end. */
const MAX_PARTIAL_CHARS = 16 * 1024;
/** A note (a line from the host) longer than this is cut. */
const MAX_NOTE_CHARS = 4000;

/**
 * The project's `.agent/logs/` when it has `.agent/`; else a folder of its own in the user's state folder
 * (`~/.local/state/agent-host/logs/<project>-<hash>/`): listing a folder's servers leaves no `.agent/` in it.
 */
export function logFileFor(root: string, server: string): string {
  const name = `mcp-${server.replace(/[^a-zA-Z0-9_.-]/g, "_")}.log`;
  if (existsSync(path.join(root, ".agent"))) return path.join(root, ".agent", "logs", name);
  return path.join(userStateDir(), "logs", projectFolderName(root), name);
}

export class ServerLog {
  private fd: number | undefined;
  private size = 0;
  private broken = false;
  private partial = "";
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    readonly file: string,
    private readonly maxBytes = MAX_LOG_BYTES,
  ) {}

  /** Output of the server (stderr, stdout noise): written a line at a time, redacted. */
  write(data: string | Buffer): void {
    if (this.broken) return;
    const text = this.partial + (typeof data === "string" ? data : this.decoder.write(data));
    const end = text.lastIndexOf("\n") + 1;
    if (end === 0 && text.length < MAX_PARTIAL_CHARS) {
      this.partial = text;
      return;
    }
    const cut = end === 0 ? text.length : end;
    this.partial = text.slice(cut);
    this.append(redactString(text.slice(0, cut)));
  }

  /** A line from the host (not the server), timestamped. */
  note(message: string): void {
    if (this.broken) return;
    this.flushPartial();
    const line = message.length > MAX_NOTE_CHARS ? `${message.slice(0, MAX_NOTE_CHARS)}… (${message.length - MAX_NOTE_CHARS} more characters)` : message;
    this.append(redactString(`[agent ${new Date().toISOString()}] ${line}\n`));
  }

  close(): void {
    this.flushPartial();
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = undefined;
  }

  private flushPartial(): void {
    if (!this.partial) return;
    const rest = this.partial;
    this.partial = "";
    this.append(redactString(`${rest}\n`));
  }

  private append(text: string): void {
    if (this.broken || text === "") return;
    try {
      let bytes = Buffer.byteLength(text);
      if (bytes > this.maxBytes) {
        // One write bigger than the whole budget: keep its end.
        const buf = Buffer.from(text);
        text = `[agent] ${bytes - this.maxBytes / 2} bytes of output cut\n${buf.subarray(buf.length - this.maxBytes / 2).toString("utf8")}`;
        bytes = Buffer.byteLength(text);
      }
      if (this.fd === undefined) this.open();
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      writeSync(this.fd!, text);
      this.size += bytes;
    } catch {
      // A log that cannot be written must not take the server down with it.
      this.broken = true;
    }
  }

  private open(): void {
    // Private folders, in the user's state folder as in the project (a server may print its tokens).
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    this.fd = openPrivateAppend(this.file);
    // A file an earlier session left near the limit is rotated by the first write that would pass it.
    this.size = fstatSync(this.fd).size;
  }

  private rotate(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    renameSync(this.file, `${this.file}.1`);
    this.fd = openPrivateAppend(this.file);
    this.size = 0;
  }
}
