/**
 * The audit log under the faults that tear or block it: a last line a crash cut short, a full disk
 * (`/dev/full` answers every write with ENOSPC) that later frees up, rotation by size, and `agent audit`
 * reading a log far larger than its heap from the end.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import { z, type ToolDefinition } from "../../core/index.js";
import { runCli } from "../helpers/cli.js";
import { closeHosts, hostWithTools } from "../helpers/host.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(async () => {
  await closeHosts();
  cleanupTemp();
});

const echo: ToolDefinition = { name: "echo", description: "Echo", risk: "read", input: z.object({ n: z.number().optional() }), run: (i) => JSON.stringify(i) };
/** A project with its .agent folder made. */
function project(files: Record<string, string | object> = {}) {
  const p = tempProject(files);
  mkdirSync(p.path(".agent"), { recursive: true });
  return p;
}
const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);
const parses = (line: string) => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

describe("no record is glued to another", () => {
  test("a last line a crash cut short is ended before the next host appends; agent audit says it skipped it", async () => {
    const p = project();
    writeFileSync(p.auditFile, `${JSON.stringify({ time: new Date().toISOString(), kind: "call", name: "before", outcome: "ok" })}\n{"time":"2026-12-01T00:00:00.000Z","kind":"call","na`);
    const { host } = await hostWithTools([echo], { project: p });
    expect((await host.tools.call("echo", { n: 1 })).ok).toBe(true);
    await host.close();
    const all = lines(p.auditFile);
    expect(all.filter((l) => !parses(l))).toEqual(['{"time":"2026-12-01T00:00:00.000Z","kind":"call","na']);
    expect(all.filter(parses).map((l) => JSON.parse(l).name)).toContain("echo");
    const r = await runCli(["audit", "--json"], { cwd: p.dir, configHome: p.configHome });
    expect(r.stdout.trim().split("\n").map((l) => JSON.parse(l).name)).toEqual(["before", "echo"]);
    expect(r.stderr).toContain("1 line of the log is not a record, torn by a crash or a full disk: skipped");
  });
});

describe("a full disk", () => {
  test("calls are refused with the reason (fail closed) and run again once the log can be written", async () => {
    const p = project();
    symlinkSync("/dev/full", p.path(".agent/full.jsonl"));
    const { host } = await hostWithTools([echo], { project: p, config: { audit: { path: ".agent/full.jsonl" } } });
    const refused = await host.tools.call("echo", {});
    expect(refused.error?.code).toBe("E_AUDIT_UNAVAILABLE");
    expect(refused.output).toContain("cannot be written (ENOSPC), and every call must be recorded");
    // The disk has room again: the log is a file now. Calls run once the log is tried again.
    unlinkSync(p.path(".agent/full.jsonl"));
    let ok = false;
    for (let i = 0; i < 400 && !ok; i++) {
      ok = (await host.tools.call("echo", { n: i })).ok;
      if (!ok) await new Promise((r) => setTimeout(r, 10));
    }
    expect(ok).toBe(true);
    await host.close();
    expect(lines(p.path(".agent/full.jsonl")).every(parses)).toBe(true);
    expect(host.problems.filter((x) => x.message.includes("not writable"))).toHaveLength(1);
  });

  test('audit.onError "warn": calls run unrecorded, said once', async () => {
    const p = project();
    symlinkSync("/dev/full", p.path(".agent/full.jsonl"));
    const { host } = await hostWithTools([echo], { project: p, config: { audit: { path: ".agent/full.jsonl", onError: "warn" } } });
    expect((await host.tools.call("echo", {})).ok).toBe(true);
    expect((await host.tools.call("echo", {})).ok).toBe(true);
    expect(host.problems.filter((x) => x.message.includes("calls run unrecorded"))).toHaveLength(1);
  });
});

describe("rotation and reading from the end", () => {
  test("a log past audit.maxBytes is rotated when a host opens it; agent audit reads across the files", async () => {
    const p = project({ ".agentrc.json": { audit: { maxBytes: 4096, keep: 2 } } });
    const old = Array.from({ length: 60 }, (_, i) => JSON.stringify({ time: new Date(Date.now() - 60_000 + i).toISOString(), kind: "call", name: `old${i}`, outcome: "ok" }));
    writeFileSync(p.auditFile, `${old.join("\n")}\n`);
    const { host } = await hostWithTools([echo], { project: p, config: { audit: { maxBytes: 4096, keep: 2 } } });
    await host.tools.call("echo", {});
    await host.close();
    expect(existsSync(`${p.auditFile}.1`)).toBe(true);
    expect(lines(`${p.auditFile}.1`)).toHaveLength(60);
    expect(lines(p.auditFile).some((l) => l.includes('"name":"echo"'))).toBe(true);
    const r = await runCli(["audit", "--json", "--tail", "100"], { cwd: p.dir, configHome: p.configHome });
    const names = r.stdout.trim().split("\n").map((l) => JSON.parse(l).name);
    expect(names.slice(0, 2)).toEqual(["old0", "old1"]);
    expect(names.at(-1)).toBe("echo");
    // Twice more past the size: each rotated file moves up one, and the oldest beyond keep (2) goes.
    for (const round of [1, 2]) {
      writeFileSync(p.auditFile, `${old.map((l) => l.replace(/"old/g, `"r${round}-`)).join("\n")}\n`);
      const again = await hostWithTools([echo], { project: p, config: { audit: { maxBytes: 4096, keep: 2 } } });
      await again.host.tools.call("echo", {});
      await again.host.close();
    }
    expect(existsSync(`${p.auditFile}.3`)).toBe(false);
    expect(lines(`${p.auditFile}.1`)[0]).toContain('"r2-0"');
    expect(lines(`${p.auditFile}.2`)[0]).toContain('"r1-0"');
  });

  test("agent audit shows the last records of a log larger than its heap allows reading whole", async () => {
    const p = project();
    const rec = (i: number) => JSON.stringify({ time: "2026-12-01T00:00:00.000Z", kind: "call", source: "tools", name: `t${i}`, outcome: "ok", args: { pad: "x".repeat(120) } });
    const chunk: string[] = [];
    for (let i = 0; i < 400_000; i++) {
      chunk.push(rec(i));
      if (chunk.length === 50_000) appendFileSync(p.auditFile, `${chunk.splice(0).join("\n")}\n`);
    }
    const r = await runCli(["audit", "--json", "--tail", "3"], { cwd: p.dir, configHome: p.configHome, env: { NODE_OPTIONS: "--max-old-space-size=48" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n").map((l) => JSON.parse(l).name)).toEqual(["t399997", "t399998", "t399999"]);
  });
});
