/**
 * `agent audit`: the last records of the audit log. Tool calls only by default (every command also
 * writes registration records, which would drown them); `--all` shows every kind; `--tool`,
 * `--outcome` and `--since` filter, and `--tail` counts what is left.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { AgentError } from "../../core/index.js";
import { auditLogFiles, readAuditTail, streamAuditRecords } from "../../kit/index.js";
import { type PreparedHost } from "../../core/embed.js";
import { patternMatcher } from "../../kit/index.js";
import { oneLine, table } from "../format.js";
import { defineAppCommand } from "./_define.js";

const OUTCOMES = ["ok", "error", "denied", "timeout", "invalid", "aborted", "no outcome"];
const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export default defineAppCommand({
  name: "audit",
  description: "show the audit log: tool calls [--all] [--tool T] [--outcome O] [--since 1h] [--tail N] [--json]",
  usage: "[--all] [--tool <name>] [--outcome <o>] [--since <when>] [--tail N] [--json]",
  details:
    "By default only tool calls are shown; --all adds registrations, commands, skills, plugins, mode changes and grants.\n" +
    `--tool takes a name or a glob (mcp__github__*); --outcome one of ${OUTCOMES.join(", ")} (or several, comma-separated);\n` +
    "--since a duration back from now (30s, 15m, 1h, 2d, 1w) or a date (2026-11-30, 2026-11-30T14:00).",
  options: {
    tail: { type: "string", short: "n", valueName: "<N>", description: 'how many of the last matching records (default 20); "all" for every one (with --json, streamed oldest first)' },
    all: { type: "boolean", short: "a", description: "every record, not only tool calls" },
    tool: { type: "string", short: "t", valueName: "<name>", description: "only calls of this tool (a glob works: mcp__github__*)" },
    outcome: { type: "string", short: "o", valueName: "<o>", description: `only these outcomes: ${OUTCOMES.join(", ")}` },
    since: { type: "string", short: "s", valueName: "<when>", description: "only records since then: 1h, 30m, 2d, or an ISO date" },
    json: { type: "boolean", description: "print the records as JSON lines" },
  },
  positionals: false,
  run: (ctx) => show(ctx.values, ctx),
});

/** `--since`: a duration back from `now`, or a date. */
export function parseSince(value: string, now = Date.now()): number {
  const d = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(value.trim());
  if (d) return now - Number(d[1]) * UNITS[d[2]];
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new AgentError("E_USAGE", `--since takes a duration back from now (30s, 15m, 1h, 2d, 1w) or a date (2026-11-30, 2026-11-30T14:00); got "${value}"`);
  return t;
}

interface Values {
  tail?: string;
  all?: boolean;
  tool?: string;
  outcome?: string;
  since?: string;
  json?: boolean;
}

async function show(values: Values, ctx: { prepare(): Promise<PreparedHost> }): Promise<number> {
  const tail = values.tail === undefined ? 20 : values.tail === "all" ? Infinity : Number(values.tail);
  if (tail !== Infinity && (!Number.isInteger(tail) || tail <= 0)) throw new AgentError("E_USAGE", `--tail must be a positive whole number or "all"; got "${values.tail}"`);
  const outcomes = values.outcome?.split(",").map((o) => o.trim()).filter(Boolean);
  const bad = outcomes?.find((o) => !OUTCOMES.includes(o));
  if (bad) throw new AgentError("E_USAGE", `--outcome must be one of ${OUTCOMES.join(", ")}; got "${bad}"`);
  const since = values.since === undefined ? undefined : parseSince(values.since);
  const tool = values.tool ? patternMatcher(values.tool) : undefined;

  const loaded = await ctx.prepare();
  if (loaded.config.audit?.enabled === false) {
    process.stderr.write("agent: the audit log is disabled in config (audit.enabled: false).\n");
    return 0;
  }
  const file = path.resolve(loaded.projectRoot, loaded.config.audit?.path ?? ".agent/audit.jsonl");
  if (!existsSync(file)) {
    process.stderr.write(`agent: no audit log yet at ${file}\n`);
    return 0;
  }
  // A tool or outcome filter is about calls whatever --all says; other kinds have no outcome of that sense.
  const callsOnly = !values.all || tool !== undefined || outcomes !== undefined;
  const match = (r: Record<string, unknown>) =>
    (!callsOnly || r.kind === "call") &&
    (!tool || tool(String(r.name ?? ""))) &&
    (!outcomes || outcomes.includes(String(r.outcome ?? ""))) &&
    (since === undefined || Date.parse(String(r.time ?? "")) >= since);
  const files = auditLogFiles(file, loaded.config.audit?.keep);
  if (values.json && tail === Infinity) {
    // Every record, written as read: a log of any size in the memory of one line.
    const unreadable = streamAuditRecords(files, match, (r) => process.stdout.write(`${JSON.stringify(r)}\n`));
    if (unreadable) process.stderr.write(unreadableNote(unreadable));
    return 0;
  }
  // From the end of the log, then of its rotated files: the last N of a million records without reading the million.
  const read = readAuditTail(files, tail, match);
  const records = read.records;
  if (read.unreadable) process.stderr.write(unreadableNote(read.unreadable));
  if (values.json) {
    for (const r of records) process.stdout.write(JSON.stringify(r) + "\n");
    return 0;
  }
  if (!records.length) {
    process.stderr.write(`agent: no ${callsOnly ? "tool calls" : "records"} match in ${file} (${read.skipped} records in all${values.all ? "" : "; --all shows every kind"}).\n`);
    return 0;
  }
  const rows = records.map((r) => [
    String(r.time ?? "").replace("T", " ").slice(0, 19),
    String(r.kind ?? ""),
    String(r.source ?? ""),
    nameCell(r),
    String(r.outcome ?? ""),
    r.durationMs !== undefined ? `${r.durationMs}ms` : "",
    oneLine(r.error ? String(r.error) : r.args !== undefined ? JSON.stringify(r.args) : "", 60),
  ]);
  process.stdout.write(table(rows, ["TIME", "KIND", "SOURCE", "NAME", "OUTCOME", "TIME(ms)", "DETAIL"]) + "\n");
  const hidden = read.skipped;
  if (hidden > 0 && !values.all && tool === undefined && outcomes === undefined && since === undefined) {
    process.stderr.write(`(${hidden}${read.complete ? "" : " or more"} records of other kinds not shown: registrations, commands, …; --all shows them)\n`);
  }
  return 0;
}

/** A record's name; a subagent's call under the agent that made it (the record also names the task call: `parentCallId`). */
export function nameCell(r: Record<string, unknown>): string {
  const name = String(r.name ?? "");
  return typeof r.agent === "string" ? `${r.agent} › ${name}` : name;
}

function unreadableNote(n: number): string {
  return `(${n} line${n > 1 ? "s" : ""} of the log ${n > 1 ? "are" : "is"} not a record, torn by a crash or a full disk: skipped)\n`;
}
