/**
 * kill -9 of a real `agent call edit_file` in the middle of editing a 120 MB file: whenever it dies, the
 * file is the old content or the new, byte for byte, never cut. The kill points are conditions the test
 * sees in the folder (the temp file appeared, a quarter / half / all of it written), not wall times.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cleanEnv } from "../../helpers/cli.js";
import { DIST_CLI, assertBuilt } from "../../helpers/paths.js";

let root: string;
let configHome: string;
const LINE = "the quick brown fox jumps over the lazy dog 0123456789\n";
const old = Buffer.concat([Buffer.from(LINE.repeat(1_100_000)), Buffer.from("MARKER-OLD\n"), Buffer.from(LINE.repeat(1_100_000))]);
const edited = Buffer.concat([Buffer.from(LINE.repeat(1_100_000)), Buffer.from("MARKER-NEW-AND-LONGER\n"), Buffer.from(LINE.repeat(1_100_000))]);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const OLD_SHA = sha(old);
const NEW_SHA = sha(edited);

beforeAll(() => {
  assertBuilt();
  root = mkdtempSync(path.join(tmpdir(), "agent-kill-edit-"));
  configHome = mkdtempSync(path.join(tmpdir(), "agent-kill-cfg-"));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(configHome, { recursive: true, force: true });
});

const tempIn = () => readdirSync(root).find((n) => n.startsWith(".big.txt.agent-") && n.endsWith(".tmp"));

/** Resolves when `cond` holds (checked every few ms) or the child exits; says which. */
function until(cond: () => boolean, exited: () => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const tick = () => {
      if (cond()) return resolve(true);
      if (exited()) return resolve(false);
      setTimeout(tick, 2);
    };
    tick();
  });
}

function targetSize(): number {
  try {
    return statSync(path.join(root, "big.txt")).size;
  } catch {
    return -1;
  }
}

/** The size the temp file has reached, 0 when there is none. */
function tempSize(): number {
  const t = tempIn();
  if (!t) return 0;
  try {
    return statSync(path.join(root, t)).size;
  } catch {
    return 0;
  }
}

it("the file is old or new at every kill point, never cut", { timeout: 240_000 }, async () => {
  const fractions = [0, 0.25, 0.5, 1, 0.1, 0.75];
  let killedMidWrite = 0;
  for (const fraction of fractions) {
    writeFileSync(path.join(root, "big.txt"), old);
    for (const t of readdirSync(root).filter((n) => n.endsWith(".tmp"))) rmSync(path.join(root, t));
    const child = spawn(
      process.execPath,
      [DIST_CLI, "call", "edit_file", JSON.stringify({ path: "big.txt", old_string: "MARKER-OLD", new_string: "MARKER-NEW-AND-LONGER" }), "--permission-mode", "bypass"],
      { cwd: root, env: cleanEnv({ AGENT_CONFIG_HOME: configHome }), stdio: "ignore" },
    );
    let exited = false;
    const done = new Promise<void>((resolve) => child.on("exit", () => ((exited = true), resolve())));
    const threshold = Math.max(1, Math.floor(edited.length * fraction));
    // Also when the target itself changes size: an in-place write (the fault) is caught cut short there.
    const hit = await until(() => (tempIn() !== undefined && tempSize() >= threshold) || targetSize() !== old.length, () => exited);
    if (hit) {
      child.kill("SIGKILL");
      killedMidWrite++;
    }
    await done;
    const now = readFileSync(path.join(root, "big.txt"));
    const h = sha(now);
    expect([OLD_SHA, NEW_SHA], `fraction ${fraction}: the file is ${now.length} bytes, neither old (${old.length}) nor new (${edited.length})`).toContain(h);
    // Killed before the rename was seen: the temp file was still there, so the original must be untouched.
    if (hit && tempIn() !== undefined && h !== OLD_SHA) expect.fail(`fraction ${fraction}: a temp file is left but the target changed`);
  }
  // The kill landed during the write at least once (the temp file was seen growing), else the test proved nothing.
  expect(killedMidWrite).toBeGreaterThan(0);
  // A leftover temp file from a kill does not stop the next edit.
  writeFileSync(path.join(root, "big.txt"), old);
  const child = spawn(process.execPath, [DIST_CLI, "call", "edit_file", JSON.stringify({ path: "big.txt", old_string: "MARKER-OLD", new_string: "MARKER-NEW-AND-LONGER" }), "--permission-mode", "bypass"], {
    cwd: root,
    env: cleanEnv({ AGENT_CONFIG_HOME: configHome }),
    stdio: "ignore",
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect(code).toBe(0);
  expect(sha(readFileSync(path.join(root, "big.txt")))).toBe(NEW_SHA);
});
