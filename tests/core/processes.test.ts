/**
 * terminate(): a process group is stopped whole (grandchildren included), SIGKILL follows SIGTERM
 * after the grace period, and members that are already zombies do not count as alive.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, test, vi } from "vitest";
import { terminate } from "../../kit/index.js";


/** Members of process group `pgid` that are running (not zombies), from /proc. */
function liveMembers(pgid: number): number[] {
  const live: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${e}/stat`, "utf8");
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") live.push(Number(e));
  }
  return live;
}

/** A shell leading its own group, once it has started what `script` starts. */
async function group(script: string): Promise<number> {
  const child = spawn("sh", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  child.stdout!.destroy();
  return child.pid!;
}

describe.runIf(process.platform === "linux")("terminate", () => {
  test("stops the whole group, background grandchildren included", async () => {
    const pgid = await group("sleep 100 & sleep 100 & echo ready; wait");
    expect(liveMembers(pgid).length).toBe(3);
    await terminate(pgid, { group: true, graceMs: 5000 });
    expect(liveMembers(pgid)).toEqual([]);
  });

  test("a group that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const pgid = await group("trap '' TERM; sleep 100 & echo ready; wait");
    expect(liveMembers(pgid).length).toBe(2);
    await terminate(pgid, { group: true, graceMs: 200 });
    expect(liveMembers(pgid)).toEqual([]);
  });

  test("members left as zombies do not count as alive: no SIGKILL for a group that is dead", async () => {
    // The shell and its sleep die of SIGTERM at once; the sleep, reparented to PID 1, stays a zombie until
    // PID 1 reaps it (about a second in this sandbox). kill(0) still finds the group then, so a terminate
    // that trusts it waits out the grace period and sends SIGKILL to what is already dead.
    const pgid = await group("sleep 100 & echo ready; wait");
    const kill = vi.spyOn(process, "kill");
    try {
      await terminate(pgid, { group: true, graceMs: 300 });
      expect(kill.mock.calls.filter(([, sig]) => sig === "SIGKILL")).toEqual([]);
      expect(liveMembers(pgid)).toEqual([]);
    } finally {
      kill.mockRestore();
    }
  });
});
