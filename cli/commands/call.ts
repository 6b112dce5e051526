/** `agent call <tool> [json-args] [--json]`: one tool through the full gate. */
import { AgentError, ExitCode } from "../../core/index.js";
import { printableFor } from "../render/_style.js";
import { defineAppCommand } from "./_define.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** `progress 3/10: indexing` — what the server reported, on one line, with terminal controls removed. */
export function progressLine(e: { progress: number; total?: number; message?: string }): string {
  const count = e.total !== undefined ? `${e.progress}/${e.total}` : String(e.progress);
  const message = e.message ? `: ${e.message.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").slice(0, 200)}` : "";
  return `progress ${count}${message}`;
}

export default defineAppCommand({
  name: "call",
  description: "call one tool through the gate: agent call <tool> [json-args] [--json]",
  usage: "<tool> [json-args] [--json]",
  details: [
    "Runs one tool through the full gate (schema, permission, timeout, output cap, audit).",
    'json-args is a JSON object; "-" reads it from stdin. With --json, prints {ok, output, error?, truncated?}.',
    "Exit codes: 0 ok, 1 the tool failed or timed out, 2 bad arguments, 3 denied by permission, 4 a login is needed (agent mcp login <server>).",
  ].join("\n"),
  options: { json: { type: "boolean", description: "print {ok, output, error?, truncated?} as JSON" } },
  async run(ctx) {
    const [name, rawArgs, ...extra] = ctx.positionals;
    if (!name) throw new AgentError("E_USAGE", "missing tool name. Usage: agent call <tool> [json-args] [--json]");
    if (extra.length) throw new AgentError("E_USAGE", `unexpected arguments after the JSON: ${extra.join(" ")}. Quote the JSON as one argument.`);
    let input: unknown = {};
    const text = rawArgs === "-" ? await readStdin() : rawArgs;
    if (text !== undefined && text.trim() !== "") {
      try {
        input = JSON.parse(text);
      } catch (err) {
        throw new AgentError("E_USAGE", `json-args is not valid JSON: ${(err as Error).message}`);
      }
    }
    const json = !!ctx.values.json;
    // Startup problems (a server that did not connect) go to stderr in every mode, and into the JSON too.
    // Notices during the call wait for its result: a server that fails to start is said once, by the call's error.
    const host = await ctx.openHost({ interactive: rawArgs !== "-", holdNotices: true });
    // A long tool's progress (an MCP server's notifications/progress) on stderr, as `agent run` shows it; --json keeps stderr quiet.
    const off = json ? undefined : host.on((e) => {
      if (e.type === "tool_progress") process.stderr.write(`${progressLine(e)}\n`);
    });
    // SIGINT / SIGTERM abort the call before the host closes: it ends "aborted", the tool is cancelled.
    const result = await host.tools.call(name, input, { signal: ctx.interrupted }).finally(() => off?.());
    ctx.releaseNotices((m) => result.ok || !saysTheCause(m, result.output));
    if (json) {
      const out: Record<string, unknown> = { ok: result.ok, output: result.output };
      if (result.error) out.error = result.error;
      if (result.truncated) out.truncated = true;
      if (result.structured !== undefined) out.structured = result.structured;
      const problems = host.problems.filter((p) => p.level !== "warning");
      if (problems.length) out.problems = problems.map((p) => p.message);
      ctx.printJson(out);
    } else if (result.ok) {
      // A terminal shows what the tool returned and does not obey it; a pipe gets the bytes as they are.
      const shown = printableFor(process.stdout, result.output);
      process.stdout.write(shown.endsWith("\n") || shown === "" ? shown : `${shown}\n`);
    } else {
      // stderr: shown (on a terminal) and redacted by ctx.warn.
      ctx.warn(result.output);
    }
    if (result.ok) return ExitCode.OK;
    // A path outside the workspace is refused by policy, like a permission rule: same exit code.
    if (result.outcome === "denied" || result.error?.code === "E_PATH_OUTSIDE_WORKSPACE") return ExitCode.DENIED;
    if (result.error?.code === "E_TOOL_NOT_FOUND" || result.outcome === "invalid") return ExitCode.USAGE;
    if (result.error?.code === "E_TOOL_NEEDS_AUTH") return ExitCode.AUTH;
    return ExitCode.FAILED;
  },
});

/**
 * A notice whose cause (after its first ": ", up to its first ". ") the call's error already gives, e.g.
 * `MCP server s failed to connect: <cause>. Continuing without s tools.` beside `the MCP server 's' failed
 * to start: <cause>`: printing both says the cause twice.
 */
function saysTheCause(notice: string, output: string): boolean {
  const after = notice.indexOf(": ");
  if (after < 0) return false;
  const rest = notice.slice(after + 2);
  const end = rest.indexOf(". ");
  const cause = (end < 0 ? rest.replace(/\.$/, "") : rest.slice(0, end)).trim();
  return cause.length >= 12 && output.includes(cause);
}
