/** `agent audit`: tool calls by default, `--all`, and the `--tool`, `--outcome` and `--since` filters (the built CLI). */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseSince } from "../../cli/commands/audit.js";
import { runCli } from "../helpers/cli.js";
import { assertBuilt } from "../helpers/paths.js";
import { cleanupTemp, tempProject, type TempProject } from "../helpers/project.js";

beforeAll(assertBuilt);
afterAll(cleanupTemp);

const now = Date.now();
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
const RECORDS = [
  { time: at(300), kind: "register", source: "tools", name: "read_file" },
  { time: at(300), kind: "register", source: "tools", name: "run_command" },
  { time: at(200), kind: "call", source: "tools", name: "read_file", outcome: "ok", durationMs: 3 },
  { time: at(90), kind: "call", source: "tools", name: "run_command", outcome: "denied", durationMs: 1, error: "Permission denied" },
  { time: at(30), kind: "command", source: "commands", name: "/mode", outcome: "ok" },
  { time: at(20), kind: "call", source: "mcp:github", name: "mcp__github__search", outcome: "error", durationMs: 40 },
  { time: at(5), kind: "call", source: "tools", name: "run_command", outcome: "ok", durationMs: 12 },
  { time: at(1), kind: "register", source: "tools", name: "grep" },
];

function project(): TempProject {
  return tempProject({ ".agent/audit.jsonl": RECORDS.map((r) => JSON.stringify(r)).join("\n") + "\n" });
}
async function audit(p: TempProject, args: string[]) {
  const r = await runCli(["audit", "--json", ...args], { cwd: p.dir, configHome: p.configHome });
  return { ...r, records: r.stdout.trim() ? r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, string>) : [] };
}
const names = (rs: Record<string, string>[]) => rs.map((r) => `${r.name}:${r.outcome ?? r.kind}`);

describe("agent audit", () => {
  test("shows tool calls by default; --all shows every kind", async () => {
    const p = project();
    expect(names((await audit(p, [])).records)).toEqual(["read_file:ok", "run_command:denied", "mcp__github__search:error", "run_command:ok"]);
    expect((await audit(p, ["--all"])).records).toHaveLength(RECORDS.length);
    const table = await runCli(["audit"], { cwd: p.dir, configHome: p.configHome });
    expect(table.stdout.trim().split("\n")).toHaveLength(5);
    expect(table.stderr).toContain("(4 records of other kinds not shown: registrations, commands, …; --all shows them)");
  });

  test("--tool (a name or a glob), --outcome (one or several), --since (a duration or a date), --tail", async () => {
    const p = project();
    expect(names((await audit(p, ["--tool", "run_command"])).records)).toEqual(["run_command:denied", "run_command:ok"]);
    expect(names((await audit(p, ["--tool", "mcp__*"])).records)).toEqual(["mcp__github__search:error"]);
    expect(names((await audit(p, ["--outcome", "denied,error"])).records)).toEqual(["run_command:denied", "mcp__github__search:error"]);
    expect(names((await audit(p, ["--since", "1h"])).records)).toEqual(["mcp__github__search:error", "run_command:ok"]);
    expect(names((await audit(p, ["--since", at(100)])).records)).toEqual(["run_command:denied", "mcp__github__search:error", "run_command:ok"]);
    expect(names((await audit(p, ["--all", "--since", "45m"])).records)).toEqual(["/mode:ok", "mcp__github__search:error", "run_command:ok", "grep:register"]);
    expect(names((await audit(p, ["--tail", "1", "--tool", "run_command"])).records)).toEqual(["run_command:ok"]);
    const none = await runCli(["audit", "--tool", "write_file"], { cwd: p.dir, configHome: p.configHome });
    expect(none).toMatchObject({ code: 0, stdout: "" });
    expect(none.stderr).toContain("no tool calls match");
  });

  test("bad filters are usage errors", async () => {
    const p = project();
    const since = await audit(p, ["--since", "yesterday-ish"]);
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since takes a duration back from now (30s, 15m, 1h, 2d, 1w) or a date');
    const outcome = await audit(p, ["--outcome", "fine"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain("--outcome must be one of ok, error, denied, timeout, invalid, aborted");
  });

  test("parseSince", () => {
    expect(parseSince("90s", 100_000)).toBe(10_000);
    expect(parseSince("2d", 3 * 86_400_000)).toBe(86_400_000);
    expect(parseSince("2026-11-30T12:00:00Z")).toBe(Date.UTC(2026, 10, 30, 12));
  });
});
