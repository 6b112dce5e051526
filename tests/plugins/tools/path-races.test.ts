/**
 * Races: another process swaps a symlink (or a folder for a symlink) between an inside and an outside
 * target as fast as it can, while hundreds of read_file / write_file / edit_file / list_files / grep
 * calls run through a real host. Whatever the interleaving, nothing outside is read or written, and
 * a deny rule is never passed by swapping a link after the gate judged it. Each loop runs until both
 * sides of the race were seen (a call that got the inside file and one that was refused) and at least
 * ROUNDS calls were made: it waits for that condition, never for time.
 *
 * | race                                                           | expected                                   |
 * |----------------------------------------------------------------|--------------------------------------------|
 * | `swap` -> inside.txt / outside/secret.txt; read_file swap      | inside text or refused; never outside text |
 * | the same; write_file swap                                      | outside/secret.txt unchanged               |
 * | the same; edit_file swap (old_string in both files)            | outside/secret.txt unchanged               |
 * | `dirswap` a folder / a symlink to outside/; read dirswap/f.txt | inside text or refused                     |
 * | the same; write_file dirswap/sub/new.txt (folders created)     | nothing created in outside/                |
 * | the same; list_files dirswap/**, grep in dirswap               | no outside name or text                    |
 * | `rswap` -> ok.txt / secrets/key.txt, deny read_file(secrets/**) | ok text or refused; never the key          |
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host, type ToolResult } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import toolsPlugin from "../../../plugins/tools/index.js";

const ROUNDS = 300;
/** A bound on the loop, far above what is needed, so a broken swapper fails the test instead of hanging it. */
const MAX_ROUNDS = 20_000;
const OUTSIDE = "OUTSIDE-c0ffee";
const KEY = "KEY-4b1d";

let base: string;
let root: string;
let outside: string;
let host: Host;
const swappers: ChildProcess[] = [];

/** A separate process that swaps `at` between the given ways of being, in a tight loop; resolves once it turned once. */
function startSwapper(script: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  swappers.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`swapper exited early (${code})`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/** Swap a symlink between two targets: a fresh link renamed over it (atomic, as `ln -sfn` does). */
const linkSwapper = (at: string, a: string, b: string) => `
const fs = require("fs");
const at = ${JSON.stringify(at)}, tmp = at + ".tmp", targets = [${JSON.stringify(a)}, ${JSON.stringify(b)}];
for (let i = 0; ; i++) {
  try { fs.rmSync(tmp, { force: true }); fs.symlinkSync(targets[i % 2], tmp); fs.renameSync(tmp, at); } catch {}
  if (i === 1) process.stdout.write("ready\\n");
}`;

/** Swap a folder for a symlink to outside and back, by renames. */
const folderSwapper = (at: string, dir: string, link: string) => `
const fs = require("fs");
const at = ${JSON.stringify(at)}, parked = [${JSON.stringify(dir)}, ${JSON.stringify(link)}];
for (let i = 0; ; i++) {
  const p = parked[i % 2];
  try { fs.renameSync(p, at); fs.renameSync(at, p); } catch {
    // A write_file made the folder while it was away (it creates missing parents): clear it, go on.
    try { if (fs.lstatSync(at).isDirectory()) fs.rmSync(at, { recursive: true, force: true }); } catch {}
  }
  if (i === 1) process.stdout.write("ready\\n");
}`;

/** Run `call` until both a success and a refusal were seen and at least ROUNDS calls ran; every result goes to `check`. */
async function race(call: (i: number) => Promise<ToolResult>, check: (r: ToolResult) => void): Promise<void> {
  let ok = 0;
  let refused = 0;
  for (let i = 0; i < MAX_ROUNDS && (i < ROUNDS || !ok || !refused); i++) {
    const r = await call(i);
    check(r);
    if (r.ok) ok++;
    else refused++;
  }
  // Both sides seen: the swapper really raced the calls (a stuck one would fail here, not pass quietly).
  expect(ok, "calls that succeeded").toBeGreaterThan(0);
  expect(refused, "calls that were refused").toBeGreaterThan(0);
}

/** Generous: on a loaded machine hundreds of calls take a while; the loops end on a condition, not a clock. */
const LONG = { timeout: 300_000 };

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-races-")));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  for (const d of ["root/secrets", "root/parked-dir/sub", "outside/sub"]) mkdirSync(path.join(base, d), { recursive: true });
  writeFileSync(path.join(root, "inside.txt"), "INSIDE\n");
  writeFileSync(path.join(root, "ok.txt"), "ok\n");
  writeFileSync(path.join(root, "secrets/key.txt"), `${KEY}\n`);
  writeFileSync(path.join(root, "parked-dir/f.txt"), "INSIDE\n");
  writeFileSync(path.join(outside, "secret.txt"), `${OUTSIDE} INSIDE\n`);
  writeFileSync(path.join(outside, "f.txt"), `${OUTSIDE} INSIDE\n`);
  symlinkSync(path.join(root, "inside.txt"), path.join(root, "swap"));
  symlinkSync(path.join(root, "ok.txt"), path.join(root, "rswap"));
  symlinkSync(outside, path.join(root, "parked-link"));
  host = await createHost({
    cwd: root,
    userConfigDir: false,
    builtins: [{ name: "tools", load: async () => toolsPlugin }],
    permissionMode: "bypass",
    config: { permissions: { deny: ["read_file(secrets/**)"] }, audit: { enabled: false } },
  });
});

afterAll(async () => {
  await Promise.all(swappers.map(stop));
  await host?.close();
  rmSync(base, { recursive: true, force: true });
});

const outsideUntouched = () => {
  expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe(`${OUTSIDE} INSIDE\n`);
  expect(readFileSync(path.join(outside, "f.txt"), "utf8")).toBe(`${OUTSIDE} INSIDE\n`);
  expect(readdirSync(outside).sort()).toEqual(["f.txt", "secret.txt", "sub"]);
  expect(readdirSync(path.join(outside, "sub"))).toEqual([]);
};

const refusedClearly = (r: ToolResult) => {
  if (!r.ok) expect(r.error?.code, r.output).toBe("E_PATH_OUTSIDE_WORKSPACE");
};

describe("a symlink swapped between an inside and an outside file", () => {
  let swapper: ChildProcess;
  beforeAll(async () => {
    swapper = await startSwapper(linkSwapper(path.join(root, "swap"), path.join(root, "inside.txt"), path.join(outside, "secret.txt")));
  });
  afterAll(() => stop(swapper));

  it("read_file never returns the outside file", LONG, async () => {
    await race(
      () => host.tools.call("read_file", { path: "swap" }),
      (r) => {
        expect(r.output).not.toContain(OUTSIDE);
        if (r.ok) expect(r.output).toMatch(/^1\tINSIDE/);
        refusedClearly(r);
      },
    );
  });

  it("write_file never writes the outside file", LONG, async () => {
    await race((i) => host.tools.call("write_file", { path: "swap", content: `INSIDE ${i}\n` }), refusedClearly);
    outsideUntouched();
  });

  it("edit_file never edits the outside file", LONG, async () => {
    writeFileSync(path.join(root, "inside.txt"), "INSIDE\n");
    await race(() => host.tools.call("edit_file", { path: "swap", old_string: "INSIDE", new_string: "INSIDE+" }), refusedClearly);
    outsideUntouched();
  });
});

describe("a folder swapped for a symlink to an outside folder", () => {
  let swapper: ChildProcess;
  beforeAll(async () => {
    swapper = await startSwapper(folderSwapper(path.join(root, "dirswap"), path.join(root, "parked-dir"), path.join(root, "parked-link")));
  });
  afterAll(() => stop(swapper));

  it("read_file of a file in it never returns the outside file", LONG, async () => {
    await race(
      () => host.tools.call("read_file", { path: "dirswap/f.txt" }),
      (r) => {
        expect(r.output).not.toContain(OUTSIDE);
        if (r.ok) expect(r.output).toMatch(/^1\tINSIDE/);
      },
    );
  });

  it("write_file in it (creating a folder) never creates anything outside", LONG, async () => {
    await race((i) => host.tools.call("write_file", { path: `dirswap/sub/new-${i % 7}/n.txt`, content: "n\n" }), () => {});
    outsideUntouched();
  });

  it("list_files and grep in it never show an outside name or text", LONG, async () => {
    await race(
      (i) => (i % 2 ? host.tools.call("list_files", { pattern: "dirswap/**" }) : host.tools.call("grep", { pattern: "INSIDE", path: "dirswap" })),
      (r) => {
        expect(r.output).not.toContain(OUTSIDE);
        expect(r.output).not.toContain("secret.txt");
        // A listing that went through the link would show the outside folder's names under its real path.
        if (r.ok) expect(r.output).not.toContain(outside);
      },
    );
  });
});

describe("a symlink swapped to a denied file after the gate judged it", () => {
  let swapper: ChildProcess;
  beforeAll(async () => {
    swapper = await startSwapper(linkSwapper(path.join(root, "rswap"), path.join(root, "ok.txt"), path.join(root, "secrets/key.txt")));
  });
  afterAll(() => stop(swapper));

  it("read_file never returns the denied file", LONG, async () => {
    await race(
      () => host.tools.call("read_file", { path: "rswap" }),
      (r) => {
        expect(r.output).not.toContain(KEY);
        if (r.ok) expect(r.output).toBe("1\tok");
        else expect(["E_TOOL_DENIED", "E_PATH_OUTSIDE_WORKSPACE"]).toContain(r.error?.code);
      },
    );
  });
});
