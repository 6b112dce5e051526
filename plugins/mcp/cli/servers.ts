/**
 * `agent mcp`: list the configured MCP servers with their live status, show one, and add or remove
 * servers in one of Claude Code's scopes (scopes.ts: local, project = `.mcp.json`, user). Declared in
 * command.ts; loaded when one of them runs.
 */
import path from "node:path";
import { AgentError, ExitCode, type CliContext, type JsonSchema, type PluginHost, type RegisteredTool } from "../../../core/index.js";
import { oneLine } from "../../../kit/index.js";
import { describeTarget, parseServers, type McpServerConfigInput } from "../config.js";
import { mcpJsonPath } from "../config/mcp-json.js";
import { parseScope, SCOPES, scopeFile, type Scope, type ScopeFile } from "./scopes.js";
import { logFileFor } from "../transport/server-log.js";
import { authWords } from "./auth.js";
import { getMcpStatus, type McpServerStatus } from "../status.js";

type Ctx<V = Record<string, unknown>> = CliContext<V>;

/** Open the host (connecting every server); print problems other than the server failures the listing shows. */
async function openHost(ctx: Ctx, json: boolean): Promise<PluginHost> {
  const host = await ctx.openHost({ quiet: true, lazyTools: false, listing: true });
  if (!json) for (const p of host.problems) if (!(p.kind === "server" && p.plugin === "mcp")) ctx.warn(`agent: ${p.message}`);
  return host;
}

function timeOf(s: McpServerStatus): string {
  return s.connectMs === undefined ? "-" : `${s.connectMs} ms`;
}

/** Servers in the folder's files that its trust held back (an untrusted folder, or added since the decision). */
async function heldBack(ctx: Ctx): Promise<{ name: string; file: string; detail?: string }[]> {
  return (await ctx.prepare()).trust.skipped.filter((i) => i.kind === "MCP server");
}

export async function list(ctx: Ctx<{ json?: boolean }>): Promise<number> {
  const json = !!ctx.values.json;
  const host = await openHost(ctx, json);
  const servers = getMcpStatus(host);
  const held = await heldBack(ctx);
  if (json) {
    ctx.printJson(servers);
    return ExitCode.OK;
  }
  const heldLine = held.length ? `Not loaded (the folder's trust does not cover them; agent trust loads them): ${held.map((h) => h.name).join(", ")}.` : "";
  if (!servers.length) {
    ctx.print(heldLine || "No MCP servers configured. Add one with: agent mcp add <name> -- <command> [args...]");
    return ExitCode.OK;
  }
  const status = (s: McpServerStatus) => (s.auth?.state === "needs-login" ? "needs login" : s.status);
  const rows = servers.map((s) => [s.name, s.transport, s.protocol ?? "-", status(s), String(s.tools), authWords(s), timeOf(s), s.error ? oneLine(s.error, 160) : s.target]);
  ctx.print(ctx.table(rows, ["NAME", "TRANSPORT", "PROTOCOL", "STATUS", "TOOLS", "AUTH", "TIME", "DETAIL"]));
  const count = (state: string) => servers.filter((s) => s.status === state).length;
  const parts = [`${count("connected")} connected`, count("failed") && `${count("failed")} failed`, count("disabled") && `${count("disabled")} disabled`].filter(Boolean);
  ctx.print(`\n${servers.length} server${servers.length === 1 ? "" : "s"}: ${parts.join(", ")}.${heldLine ? `\n${heldLine}` : ""}`);
  return ExitCode.OK;
}

/** `text: string (required)`-style summary of an input schema's top-level properties. */
function describeInput(schema: JsonSchema): string {
  const props = Object.entries((schema.properties ?? {}) as Record<string, { type?: unknown; description?: unknown }>);
  if (!props.length) return "(no arguments)";
  const required = new Set(schema.required ?? []);
  return props
    .map(([name, p]) => `${name}: ${Array.isArray(p?.type) ? p.type.join("|") : typeof p?.type === "string" ? p.type : "any"}${required.has(name) ? " (required)" : ""}`)
    .join(", ");
}

export async function get(ctx: Ctx<{ json?: boolean }>): Promise<number> {
  const [name, ...extra] = ctx.positionals;
  if (!name || extra.length) throw new AgentError("E_USAGE", "Usage: agent mcp get <server> [--json]");
  const json = !!ctx.values.json;
  const host = await openHost(ctx, json);
  const servers = getMcpStatus(host);
  const status = servers.find((s) => s.name === name);
  if (!status) {
    const held = (await heldBack(ctx)).find((h) => h.name === name);
    if (held) throw new AgentError("E_USAGE", `MCP server "${name}" (${held.file}) was not loaded: the folder's trust does not cover it. Trust the folder with: agent trust`);
    throw new AgentError("E_USAGE", `no MCP server named "${name}". ${servers.length ? `Configured: ${servers.map((s) => s.name).join(", ")}.` : "None is configured."}`);
  }
  const tools = host.tools.list().filter((t) => t.source === `mcp:${name}`);
  // This plugin's own: the skills plugin may offer the server's skills as commands under the same source.
  const prompts = host.commands.list().filter((c) => c.source === `mcp:${name}` && c.plugin === "mcp");
  const skills = host.skills.list().filter((k) => k.source === `mcp:${name}` && k.plugin === "mcp");
  // Where this host's connection writes it (decided when the plugin set up), else where one would.
  const file = status.log ?? logFileFor(host.workspace.root, name);
  // Relative to the cwd when it is the project's; the user's state folder is named whole.
  const inProject = !path.relative(host.workspace.root, file).startsWith("..");
  const log = (inProject && path.relative(host.cwd, file)) || file;
  if (json) {
    ctx.printJson({
      ...status,
      log,
      toolList: tools.map((t: RegisteredTool) => ({
        name: t.name,
        mcpName: (t.meta?.mcpTool as string | undefined) ?? null,
        risk: t.risk,
        description: t.description,
        inputSchema: t.inputSchema,
      })),
      promptList: prompts.map((c) => ({ command: `/${c.name}`, description: c.description, argumentHint: c.argumentHint ?? null })),
      skillList: skills.map((k) => ({ name: k.name, uri: k.path ?? null, description: k.description, files: (k.meta?.files as string[] | undefined) ?? [] })),
    });
  } else {
    const out: string[] = [name];
    const how = [status.transport, status.connectMs !== undefined ? `${status.connectMs} ms` : undefined].filter(Boolean).join(", ");
    out.push(`  status:  ${status.status}${how ? ` (${how})` : ""}`);
    if (status.server) out.push(`  server:  ${status.server.name} ${status.server.version}`);
    if (status.protocol) out.push(`  protocol: ${status.protocol}`);
    out.push(`  ${status.transport === "stdio" ? "command" : "url    "}: ${status.target}`);
    if (status.auth) out.push(`  auth:    ${authWords(status)}${status.auth.scope ? ` (scope ${status.auth.scope})` : ""}`);
    if (status.error) out.push(`  error:   ${status.error}`);
    out.push(`  log:     ${log}`);
    // The count agrees with `agent mcp list`: the server's tools; the resources helper is named apart.
    const helper = tools.find((t) => !t.meta?.mcpTool);
    out.push("", `Tools (${status.tools} from the server${helper ? `, plus ${helper.name} to list and read its resources` : ""}):`);
    const width = Math.max(0, ...tools.map((t) => t.name.length));
    for (const t of tools) {
      out.push(`  ${t.name.padEnd(width)}  ${t.risk.padEnd(7)}  ${oneLine(t.description, 90)}`);
      out.push(`  ${"".padEnd(width)}  ${"".padEnd(7)}  input: ${oneLine(describeInput(t.inputSchema), 90)}`);
    }
    if (prompts.length) {
      out.push("", `Prompts, as slash commands (${prompts.length}):`);
      for (const c of prompts) out.push(`  /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}  ${oneLine(c.description, 80)}`);
    }
    if (skills.length) {
      out.push("", `Skills (${skills.length}):`);
      for (const k of skills) out.push(`  ${k.name}  ${k.path ?? ""}  ${oneLine(k.description, 80)}`);
    }
    // What the server said (its name, version, error, tool descriptions): ctx.print shows it, on a terminal, as text.
    ctx.print(out.join("\n"));
  }
  return status.status === "failed" ? ExitCode.FAILED : ExitCode.OK;
}

/** The project root as the config loader sees it (so the file we write is the one it reads). */
async function projectFiles(ctx: Ctx) {
  const prepared = await ctx.prepare();
  return { root: prepared.projectRoot, merged: (prepared.config.mcpServers ?? {}) as Record<string, unknown>, files: prepared.configFiles };
}

const NAME_RE = /^[a-zA-Z0-9_-]{1,48}$/;

const SCOPE_MEANING: Record<Scope, string> = {
  local: "local scope: this project, only on this machine",
  project: "project scope: shared with everyone who clones the project",
  user: "user scope: every project of yours",
};

export async function add(ctx: Ctx<{ transport?: string; env?: string[]; header?: string[]; trust?: boolean; scope?: string }>): Promise<number> {
  const usage = "Usage: agent mcp add [-s local|project|user] [--trust] <name> [--env K=V]... -- <command> [args...]\n       agent mcp add [-s local|project|user] [--trust] --transport http|sse <name> <url> [--header \"K: V\"]...";
  const values = ctx.values;
  const scope = parseScope(values.scope);
  const [name, ...rest] = [...ctx.positionals, ...ctx.rest];
  if (!name || !rest.length) throw new AgentError("E_USAGE", usage);
  if (!NAME_RE.test(name)) throw new AgentError("E_USAGE", `server name "${name}" may only use letters, digits, _ and - (at most 48), because it becomes part of tool names.`);

  const looksLikeUrl = rest.length === 1 && /^https?:\/\//i.test(rest[0]);
  const transport = values.transport ?? (looksLikeUrl ? "auto" : "stdio");
  if (!["stdio", "http", "sse", "auto"].includes(transport)) throw new AgentError("E_USAGE", `--transport must be stdio, http or sse; got "${transport}"`);

  let entry: McpServerConfigInput;
  if (transport === "stdio") {
    if (values.header?.length) throw new AgentError("E_USAGE", "--header is for remote servers (--transport http or sse)");
    const env: Record<string, string> = {};
    for (const kv of values.env ?? []) {
      const eq = kv.indexOf("=");
      if (eq <= 0) throw new AgentError("E_USAGE", `--env needs KEY=value; got "${kv}"`);
      env[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    const [command, ...commandArgs] = rest;
    entry = { command, args: commandArgs, ...(Object.keys(env).length ? { env } : {}) };
  } else {
    if (values.env?.length) throw new AgentError("E_USAGE", "--env is for local (stdio) servers; remote servers take --header");
    if (rest.length !== 1) throw new AgentError("E_USAGE", `a remote server takes one URL after its name; got: ${rest.join(" ")}`);
    const headers: Record<string, string> = {};
    for (const h of values.header ?? []) {
      const colon = h.indexOf(":");
      if (colon <= 0) throw new AgentError("E_USAGE", `--header needs "Name: value"; got "${h}"`);
      headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
    }
    entry = { ...(transport === "auto" ? {} : { type: transport as "http" | "sse" }), url: rest[0], ...(Object.keys(headers).length ? { headers } : {}) };
  }

  if (values.trust) entry.trust = true;
  // Check the entry as the plugin will. ${VARS} stay unexpanded in the file; validate as if every one were set.
  const check = parseServers({ [name]: entry }, { root: ctx.cwd, env: new Proxy({}, { get: () => "x" }) });
  const fatal = check.problems.find((p) => p.fatal);
  if (fatal) throw new AgentError("E_USAGE", fatal.message);

  const { root, merged, files } = await projectFiles(ctx as Ctx);
  const target = scopeFile(scope, root);
  if (Object.hasOwn(await target.servers(), name)) {
    throw new AgentError("E_USAGE", `an MCP server named "${name}" is already in ${target.file}; remove it first (agent mcp remove -s ${scope} ${name}).`);
  }
  // Values written out (not ${VAR} references) in a file everyone who clones the project gets: say so.
  const literal = [...Object.entries(entry.env ?? {}), ...Object.entries(entry.headers ?? {})].filter(([, v]) => !String(v).includes("${")).map(([k]) => k);
  await target.set(name, entry);
  const kind = transport === "stdio" ? "local (stdio)" : transport === "auto" ? "remote" : transport === "http" ? "remote (Streamable HTTP)" : "remote (SSE)";
  ctx.print(`Added ${kind} MCP server "${name}" to ${target.file} (${SCOPE_MEANING[scope]}): ${describeTarget({ command: entry.command, args: (entry.args ?? []).map(String), url: entry.url })}`);
  // A server in the folder's files starts only in a trusted folder: say so now rather than on the next run.
  const trust = scope === "user" ? undefined : (await ctx.prepare()).trust;
  if (trust?.state === "untrusted") ctx.warn(`agent: this folder is not trusted, so "${name}" will not start until you trust it: agent trust`);
  // .mcp.json is the project's shared file: a server added to it is new to the decision, like one a pull brings.
  else if (trust?.source === "folder" && scope === "project") ctx.warn(`agent: "${name}" starts once you trust the folder again (agent trust): the decision covers what .mcp.json held then.`);
  if (scope === "project" && literal.length) {
    ctx.warn(
      `agent: warning: ${target.file} is shared with everyone who clones the project, and now holds the value of ${literal.join(", ")} as written. ` +
        `Keep secrets out of it: add the server with -s local (this machine only), or write "\${${literal[0]}}" and set the variable in your environment.`,
    );
  }
  if (scope === "project" && Object.hasOwn(merged, name)) {
    const other = files.find((f) => !f.endsWith(".mcp.json")) ?? "the agent config";
    ctx.print(`Note: "${name}" is also defined in ${other}, which takes precedence over .mcp.json.`);
  } else if (scope !== "project" && Object.hasOwn(await scopeFile("project", root).servers(), name)) {
    ctx.print(`Note: "${name}" is also in ${mcpJsonPath(root)}; this entry takes precedence over it.`);
  }
  ctx.print(`Check it with: agent mcp get ${name}`);
  return ExitCode.OK;
}

export async function remove(ctx: Ctx<{ scope?: string }>): Promise<number> {
  const [name, ...extra] = ctx.positionals;
  if (!name || extra.length) throw new AgentError("E_USAGE", "Usage: agent mcp remove [-s local|project|user] <name>");
  const { root, merged, files } = await projectFiles(ctx as Ctx);
  const scopes = ctx.values.scope === undefined ? SCOPES : [parseScope(ctx.values.scope)];
  const found: ScopeFile[] = [];
  for (const scope of scopes) {
    const f = scopeFile(scope, root);
    if (Object.hasOwn(await f.servers(), name)) found.push(f);
  }
  if (found.length > 1) {
    throw new AgentError("E_USAGE", `MCP server "${name}" is in ${found.map((f) => `${f.file} (${f.scope})`).join(" and ")}; say which: agent mcp remove -s ${found[0].scope} ${name}`);
  }
  if (!found.length) {
    if (Object.hasOwn(merged, name)) {
      const other = files.find((f) => !f.endsWith(".mcp.json")) ?? "the agent config";
      throw new AgentError("E_USAGE", `MCP server "${name}" is defined in ${other}, not in .mcp.json; remove it there.`);
    }
    const known = Object.keys(merged);
    throw new AgentError("E_USAGE", `no MCP server named "${name}"${ctx.values.scope ? ` in the ${ctx.values.scope} scope` : ""}. ${known.length ? `Configured: ${known.join(", ")}.` : "None is configured."}`);
  }
  await found[0].set(name, undefined);
  ctx.print(`Removed MCP server "${name}" from ${found[0].file}.`);
  return ExitCode.OK;
}
