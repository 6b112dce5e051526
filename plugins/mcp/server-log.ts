/**
 * One log file per server (`.agent/logs/mcp-<server>.log`): a stdio server's stderr, noise it
 * printed on stdout, and client-side errors. Never the user's terminal, never the protocol channel.
 * Writes are synchronous appends, so the tail survives a crash; a file over 5 MiB is rotated once
 * (to `.1`) when first opened.
 */
import { closeSync, mkdirSync, openSync, renameSync, statSync, writeSync } from "node:fs";
import path from "node:path";

const ROTATE_BYTES = 5 * 1024 * 1024;

export function logFileFor(root: string, server: string): string {
  return path.join(root, ".agent", "logs", `mcp-${server.replace(/[^a-zA-Z0-9_.-]/g, "_")}.log`);
}

export class ServerLog {
  private fd: number | undefined;
  private broken = false;

  constructor(readonly file: string) {}

  write(data: string | Buffer): void {
    if (this.broken) return;
    try {
      if (this.fd === undefined) {
        mkdirSync(path.dirname(this.file), { recursive: true });
        try {
          if (statSync(this.file).size > ROTATE_BYTES) renameSync(this.file, `${this.file}.1`);
        } catch {
          /* no file yet */
        }
        this.fd = openSync(this.file, "a", 0o600);
      }
      if (typeof data === "string") writeSync(this.fd, data);
      else writeSync(this.fd, data);
    } catch {
      // A log that cannot be written must not take the server down with it.
      this.broken = true;
    }
  }

  /** A line from the host (not the server), timestamped. */
  note(message: string): void {
    this.write(`[agent ${new Date().toISOString()}] ${message}\n`);
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = undefined;
  }
}
