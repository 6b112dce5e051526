/**
 * The policy as text: bubblewrap's argument order (later mounts cover earlier ones), the macOS Seatbelt
 * profile (not run by CI, which is Linux: its text is what is checked), the settings' paths, and what
 * the model is told for the refusals each program words its own way.
 */
import { homedir } from "node:os";
import { describe, expect, test } from "vitest";
import { bwrapArgs } from "../../sandbox/bwrap-args.js";
import { unixSocketFilter, withFilter } from "../../sandbox/seccomp.js";
import { explainRefusal } from "../../sandbox/explain.js";
import type { SandboxMounts } from "../../sandbox/mounts.js";
import { sbString, seatbeltProfile } from "../../sandbox/seatbelt.js";
import { sandboxSettings } from "../../sandbox/settings.js";

const mounts: SandboxMounts = {
  writable: ["/tmp/ws", "/data/cache"],
  readOnly: ["/tmp/ws/.git/config", "/tmp/ws/.agent"],
  hidden: [
    { path: "/home/u/.ssh", dir: true },
    { path: "/home/u/.netrc", dir: false },
  ],
};

test("bwrap: / read-only, then /tmp, the writable folders, the protected files, the credentials; no caps; no network", () => {
  const a = bwrapArgs(mounts, { cwd: "/tmp/ws/sub", network: "none" }, ["/bin/bash", "-c", "make"]);
  const at = (...seq: string[]) => a.findIndex((_, i) => seq.every((s, j) => a[i + j] === s));
  expect(at("--ro-bind", "/", "/")).toBe(0);
  expect(at("--tmpfs", "/tmp")).toBeLessThan(at("--bind-try", "/tmp/ws", "/tmp/ws"));
  expect(at("--bind-try", "/data/cache", "/data/cache")).toBeLessThan(at("--ro-bind-try", "/tmp/ws/.git/config", "/tmp/ws/.git/config"));
  expect(at("--ro-bind-try", "/tmp/ws/.agent", "/tmp/ws/.agent")).toBeLessThan(at("--tmpfs", "/home/u/.ssh"));
  expect(at("--ro-bind-try", "/dev/null", "/home/u/.netrc")).toBeGreaterThan(0);
  for (const f of ["--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"]) expect(a).toContain(f);
  expect(at("--cap-drop", "ALL")).toBeGreaterThan(0);
  expect(at("--chdir", "/tmp/ws/sub")).toBeGreaterThan(0);
  expect(a.slice(-4)).toEqual(["--", "/bin/bash", "-c", "make"]);
  expect(bwrapArgs(mounts, { cwd: "/tmp/ws", network: "all" }, ["x"])).not.toContain("--unshare-net");
});

test("seatbelt: writes only to the writable folders and the temp folder, protected and hidden paths denied after, no network", () => {
  const p = seatbeltProfile(mounts, { tmpDir: "/private/var/folders/x/T/agent-1", network: "none" });
  const lines = p.trim().split("\n");
  expect(lines.slice(0, 3)).toEqual(["(version 1)", "(allow default)", "(deny file-write*)"]);
  expect(lines[3]).toContain('(allow file-write* (subpath "/tmp/ws") (subpath "/data/cache") (subpath "/private/var/folders/x/T/agent-1")');
  expect(lines[4]).toBe('(deny file-write* (literal "/tmp/ws/.git/config") (subpath "/tmp/ws/.git/config") (literal "/tmp/ws/.agent") (subpath "/tmp/ws/.agent"))');
  expect(lines[5]).toBe('(deny file-read* file-write* (subpath "/home/u/.ssh") (literal "/home/u/.netrc"))');
  expect(lines).toContain("(deny network*)");
  expect(p).not.toContain("allow network");
  const proxied = seatbeltProfile(mounts, { tmpDir: "/t", network: "none", proxyPort: 4567 });
  expect(proxied.trim().split("\n").at(-1)).toBe('(allow network-outbound (remote ip "localhost:4567"))');
  expect(seatbeltProfile(mounts, { tmpDir: "/t", network: "all" })).not.toContain("network");
});

test("seatbelt: a path with quotes or backslashes cannot end its string early", () => {
  expect(sbString('/a"b\\c')).toBe('"/a\\"b\\\\c"');
  const p = seatbeltProfile({ writable: ['/ws/")(allow default'], readOnly: [], hidden: [] }, { tmpDir: "/t", network: "all" });
  expect(p).toContain('(subpath "/ws/\\")(allow default")');
});

test("settings: defaults, ~ expanded, relative paths from the project root", () => {
  expect(sandboxSettings(undefined, "/p")).toEqual({ enabled: true, required: false, hooks: false, allowWrite: [], denyRead: [], network: "none" });
  const s = sandboxSettings({ allowWrite: ["~/.cache/pip", "build", "/abs"], denyRead: ["~"] }, "/p");
  expect(s.allowWrite).toEqual([`${homedir()}/.cache/pip`, "/p/build", "/abs"]);
  expect(s.denyRead).toEqual([homedir()]);
});

const ctx = { mounts, cwd: "/tmp/ws", network: "none" as const, refused: [] };
test.each([
  ["bash", "/bin/bash: line 1: /etc/x: Read-only file system", "/etc/x"],
  ["coreutils", "touch: cannot touch '/usr/y': Read-only file system", "/usr/y"],
  ["python", "OSError: [Errno 30] Read-only file system: '/opt/z'", "/opt/z"],
  ["node", "Error: EROFS: read-only file system, open '/root/w'", "/root/w"],
])("a refused write as %s words it names the path", (_who, stderr, p) => {
  expect(explainRefusal({ stdout: "", stderr, exitCode: 1 }, ctx)).toContain(`writing ${p}: commands may write only`);
});

test("a protected file is named as one; the network and hidden credentials only for a failed command", () => {
  expect(explainRefusal({ stdout: "", stderr: "OSError: [Errno 30] Read-only file system: '.git/config'", exitCode: 1 }, ctx)).toContain(".git/config (a protected file");
  expect(explainRefusal({ stdout: "", stderr: "curl: (6) Could not resolve host: example.com", exitCode: 6 }, ctx)).toContain('sandbox.network is "none"');
  expect(explainRefusal({ stdout: "Could not resolve host (from a test's fixture)", stderr: "", exitCode: 0 }, ctx)).toBeUndefined();
  expect(explainRefusal({ stdout: "", stderr: "cat: /home/u/.ssh/id_rsa: No such file or directory", exitCode: 1 }, ctx)).toContain("reading /home/u/.ssh: credentials are hidden");
  expect(explainRefusal({ stdout: "ok", stderr: "", exitCode: 0 }, ctx)).toBeUndefined();
  expect(explainRefusal({ stdout: "", stderr: "", exitCode: 1 }, { ...ctx, network: ["a.com"], refused: ["b.com"] })).toContain("connecting to b.com: not in sandbox.network");
});

describe("the Unix-socket filter", () => {
  test("classic BPF for this machine: refuses socket(AF_UNIX), io_uring_setup and other ABIs, allows the rest", () => {
    const f = unixSocketFilter("x64")!;
    expect(f.length % 8).toBe(0);
    const insns = Array.from({ length: f.length / 8 }, (_, i) => ({ code: f.readUInt16LE(i * 8), k: f.readUInt32LE(i * 8 + 4) }));
    expect(insns.at(-1)).toEqual({ code: 0x06, k: 0x7fff0000 });
    expect(insns.map((x) => x.k)).toEqual(expect.arrayContaining([0xc000003e, 41, 425, 1, 0x00050001]));
    expect(unixSocketFilter("arm64")!.includes(Buffer.from([198, 0, 0, 0]))).toBe(true);
    expect(unixSocketFilter("ia32")).toBeUndefined();
  });

  test("bwrap takes it on descriptor 3, opened by a sh that execs bwrap", () => {
    const args = bwrapArgs({ writable: ["/w"], readOnly: [], hidden: [] }, { cwd: "/w", network: "none", seccomp: true }, ["x"]);
    expect(args.slice(args.indexOf("--seccomp"), args.indexOf("--seccomp") + 2)).toEqual(["--seccomp", "3"]);
    expect(withFilter("/usr/bin/bwrap", args, "/f.bpf")).toEqual({ file: "/bin/sh", args: ["-c", 'exec 3<"$0" && exec "$@"', "/f.bpf", "/usr/bin/bwrap", ...args] });
  });
});
