/**
 * A writer killed with SIGKILL between writing its temp file and renaming it leaves the temp beside
 * the untouched file; the next atomic write of that file, by another process, removes it. A live
 * writer's temp, another file's and anything not named exactly as a temp stay.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { runCli } from "../helpers/cli.js";
import { DIST_CLI, DIST_INDEX_URL, DIST_KIT_URL, assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(() => cleanupTemp());

/** Loaded first (--import): a rename of a temp matching `TEMP` writes `BLOCKED` and then waits forever, to be killed there. */
const STOP_AT_RENAME = `import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const rename = fs.renameSync;
const temp = new RegExp(process.env.TEMP);
fs.renameSync = (from, to) => {
  if (!temp.test(String(from))) return rename(from, to);
  fs.writeFileSync(process.env.BLOCKED, String(from));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
};
syncBuiltinESMExports();
`;

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())));
}

/** Resolves once `file` exists (checked every few ms); rejects if the child exits first. */
function appears(file: string, child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (existsSync(file)) return resolve();
      if (child.exitCode !== null || child.signalCode !== null) return reject(new Error(`the writer exited (${child.exitCode ?? child.signalCode}) before it reached the rename`));
      setTimeout(tick, 5);
    };
    tick();
  });
}

/** Starts `args` under node with the rename stopper, waits until it stops at the rename, and kills it with SIGKILL. */
async function killAtRename(cwd: string, args: string[], temp: RegExp, env: Record<string, string> = {}): Promise<number> {
  assertBuilt();
  const stopper = path.join(cwd, "..", "stop-at-rename.mjs");
  writeFileSync(stopper, STOP_AT_RENAME);
  const blocked = path.join(cwd, "..", "blocked");
  const child = spawn(process.execPath, ["--import", stopper, ...args], { cwd, env: { ...process.env, ...env, TEMP: temp.source, BLOCKED: blocked }, stdio: "ignore" });
  await appears(blocked, child);
  child.kill("SIGKILL");
  await exited(child);
  expect(child.signalCode).toBe("SIGKILL");
  return child.pid!;
}

describe("temp files left by a writer killed before its rename", () => {
  test("write_file: the next write of the file removes the dead writer's temp, and only that", async () => {
    const p = tempProject({ "a.txt": "old\n", "b.txt": "b\n" });
    const env = { AGENT_CONFIG_HOME: p.configHome, AGENT_TRUST: "1", NO_COLOR: "1" };
    const dead = await killAtRename(p.dir, [DIST_CLI, "call", "write_file", JSON.stringify({ path: "a.txt", content: "new\n" }), "--permission-mode", "bypass"], /\.agent-\d+-[0-9a-f]{8}\.tmp$/, env);
    const left = readdirSync(p.dir).filter((n) => n.startsWith(".a.txt.agent-"));
    expect(left).toEqual([expect.stringMatching(new RegExp(`^\\.a\\.txt\\.agent-${dead}-[0-9a-f]{8}\\.tmp$`))]);
    expect(readFileSync(p.path(left[0]!), "utf8")).toBe("new\n");
    expect(readFileSync(p.path("a.txt"), "utf8")).toBe("old\n");

    const kept = [
      `.a.txt.agent-${process.pid}-0123abcd.tmp`, // a live writer's (this test's own pid)
      `.b.txt.agent-${dead}-0123abcd.tmp`, // another file's
      `.a.txt.agent-${dead}-notours.tmp`, // not named exactly as a temp
      `a.txt.agent-${dead}-0123abcd.tmp`,
    ];
    for (const name of kept) writeFileSync(p.path(name), "someone's\n");

    const r = await runCli(["call", "write_file", JSON.stringify({ path: "a.txt", content: "newer\n" }), "--permission-mode", "bypass"], { cwd: p.dir, configHome: p.configHome });
    expect(r.code).toBe(0);
    expect(readFileSync(p.path("a.txt"), "utf8")).toBe("newer\n");
    expect(existsSync(p.path(left[0]!))).toBe(false);
    for (const name of kept) expect(readFileSync(p.path(name), "utf8")).toBe("someone's\n");
  });

  test("writeFileAtomic (config files): the next write of the file by another process removes the dead writer's temp, and only that", async () => {
    const p = tempProject({ "settings.json": '{"v":1}' });
    const target = p.path("settings.json");
    const write = (content: string) => `import { writeFileAtomic } from ${JSON.stringify(DIST_KIT_URL)}; writeFileAtomic(${JSON.stringify(target)}, ${JSON.stringify(content)});`;
    const dead = await killAtRename(p.dir, ["--input-type=module", "-e", write('{"v":2}')], /settings\.json\.\d+\.tmp$/);
    const leftover = `settings.json.${dead}.tmp`;
    expect(readFileSync(p.path(leftover), "utf8")).toBe('{"v":2}');
    expect(readFileSync(target, "utf8")).toBe('{"v":1}');

    const kept = [`settings.json.${process.pid}.tmp`, `other.json.${dead}.tmp`, `settings.json.${dead}.tmp.bak`, `settings.json.x${dead}.tmp`];
    for (const name of kept) writeFileSync(p.path(name), "someone's");

    const child = spawn(process.execPath, ["--input-type=module", "-e", write('{"v":3}')], { cwd: p.dir, stdio: "ignore" });
    await exited(child);
    expect(child.exitCode).toBe(0);
    expect(readFileSync(target, "utf8")).toBe('{"v":3}');
    expect(existsSync(p.path(leftover))).toBe(false);
    for (const name of kept) expect(readFileSync(p.path(name), "utf8")).toBe("someone's");
  });
});
