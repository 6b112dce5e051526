/**
 * A seccomp filter that keeps a sandboxed command from creating Unix sockets (`socket(AF_UNIX, …)`):
 * a socket file the command can see (`/var/run/docker.sock`, a desktop bus, an ssh-agent) is a way out
 * of the network namespace, and a read-only mount does not stop `connect`. `socketpair` stays allowed
 * (it connects nothing outside; libuv and Python use it for pipes). `io_uring_setup` is refused too, since
 * io_uring can make sockets without the `socket` system call, and so is every call of another ABI (x32,
 * 32-bit), which could reach `socket` by another number. Classic BPF, as bwrap's `--seccomp FD` takes it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ARCHES: Record<string, { audit: number; socket: number; ioUringSetup: number }> = {
  x64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425 },
  arm64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425 },
};

const LD_ABS_W = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const RET = 0x06;
const ALLOW = 0x7fff0000;
const EPERM = 0x00050000 | 1;
const AF_UNIX = 1;
const X32_BIT = 0x40000000;

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter for this machine's architecture, or undefined where none is known. */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const a = ARCHES[arch];
  if (!a) return undefined;
  const prog: Insn[] = [
    [LD_ABS_W, 0, 0, 4], // seccomp_data.arch
    [JEQ, 1, 0, a.audit],
    [RET, 0, 0, EPERM], // another ABI
    [LD_ABS_W, 0, 0, 0], // seccomp_data.nr
    [JGE, 0, 1, X32_BIT],
    [RET, 0, 0, EPERM], // x32 numbers
    [JEQ, 0, 1, a.ioUringSetup],
    [RET, 0, 0, EPERM],
    [JEQ, 0, 3, a.socket],
    [LD_ABS_W, 0, 0, 16], // seccomp_data.args[0], low half: the domain
    [JEQ, 0, 1, AF_UNIX],
    [RET, 0, 0, EPERM],
    [RET, 0, 0, ALLOW],
  ];
  const buf = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}

let written: string | null | undefined;

/** The filter in a file of a private folder (written once per process), or undefined where there is none. */
export function unixSocketFilterFile(): string | undefined {
  if (written !== undefined) return written ?? undefined;
  const filter = unixSocketFilter();
  if (!filter) return (written = null) ?? undefined;
  const dir = mkdtempSync(path.join(tmpdir(), "agent-seccomp-"));
  const file = path.join(dir, "no-unix-sockets.bpf");
  writeFileSync(file, filter, { mode: 0o600 });
  return (written = file);
}

/**
 * The spawn that runs `bwrap args…` with the filter on descriptor 3 (`--seccomp 3` must be among the
 * args): a `sh` opens the file and execs bwrap, so callers spawn as they always do.
 */
export function withFilter(bwrap: string, args: readonly string[], filterFile: string): { file: string; args: string[] } {
  return { file: "/bin/sh", args: ["-c", 'exec 3<"$0" && exec "$@"', filterFile, bwrap, ...args] };
}
