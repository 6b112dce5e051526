/**
 * The MCP plugin: every tool of every configured MCP server becomes a registry tool
 * (`mcp__<server>__<tool>`) that passes the same gate as any other; prompts become slash commands and
 * the skills a server serves (`skill://<path>/SKILL.md`) become skills named `<server>-<name>`.
 * Written only against the public plugin API: it owns the `mcpServers` config section, reads
 * `.mcp.json` in its config hook and contributes `agent mcp`. The MCP SDK is loaded only when at
 * least one enabled server is configured, so `agent tools` without servers stays fast.
 */
import { definePlugin, z, type PluginContext } from "../../core/index.js";
import { type ConfigTrust } from "../../core/embed.js";
import { MAX_CONFIG_DEPTH } from "../../kit/index.js";
import { mcpCli } from "./cli/command.js";
import { parseServers } from "./config.js";
import type { McpManager } from "./manager.js";
import { mcpJsonPath, readMcpJsonServers } from "./config/mcp-json.js";
import { declareServerSecrets } from "./config/secrets.js";
import { publishControl, publishStatus, type McpServerStatus } from "./status.js";

export { getMcpControl, getMcpStatus, type McpControl, type McpServerStatus } from "./status.js";

declare module "../../core/index.js" {
  interface PluginConfigSections {
    /** MCP servers, in the shape `.mcp.json`, Claude Desktop and Cursor use (checked per server by the MCP plugin). */
    mcpServers?: Record<string, Record<string, unknown>>;
  }
}

/** A server entry's command line or URL, as written (what it would run or reach). */
function serverTarget(raw: unknown): { transport: McpServerStatus["transport"]; target: string } {
  const e = (raw && typeof raw === "object" ? raw : {}) as { command?: unknown; args?: unknown; url?: unknown; httpUrl?: unknown; type?: unknown };
  const url = typeof e.url === "string" ? e.url : typeof e.httpUrl === "string" ? e.httpUrl : undefined;
  const args = Array.isArray(e.args) ? e.args.map(String) : [];
  const transport = typeof e.command === "string" ? "stdio" : e.type === "sse" ? "sse" : e.type === "http" || e.httpUrl ? "http" : "auto";
  return { transport, target: url ?? [typeof e.command === "string" ? e.command : "", ...args].join(" ").trim() };
}

/** What the trust question shows for a server: what it runs, or where it connects (with the user's tokens). */
function describeServer(raw: unknown): string {
  const { transport, target } = serverTarget(raw);
  return transport === "stdio" ? `runs ${target}` : `connects to ${target}`;
}

/** Status of a server that never gets a connection: disabled, or rejected by config validation. */
function staticStatus(name: string, raw: unknown, status: "disabled" | "failed", error?: string): McpServerStatus {
  return { name, ...serverTarget(raw), status, tools: 0, prompts: 0, resources: false, error };
}

/** `.mcp.json` is the folder's file: a server of it runs (or gets the user's tokens) only as far as the folder is trusted. */
function admitServers(servers: Record<string, unknown>, file: string, trust: ConfigTrust): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(servers)) {
    if (trust.admit({ kind: "MCP server", name, file, value, detail: describeServer(value) })) out[name] = value;
  }
  return out;
}

export default definePlugin(() => {
  let ctx: PluginContext;
  let manager: McpManager | undefined;
  /** `.mcp.json` entries left out by the config hook for nesting too deep: reported in setup, like any bad entry. */
  let tooDeep = new Map<string, string>();

  return {
    name: "mcp",
    // Each server entry is checked on its own by parseServers, so one bad entry never costs the others.
    // From a folder the user has not trusted, no server loads: each is asked about on its own.
    configSections: { mcpServers: { schema: z.record(z.string(), z.unknown()), merge: "entries", trust: { entries: "MCP server", describe: describeServer } } },
    cli: [mcpCli],
    async config(config, env) {
      const file = mcpJsonPath(env.projectRoot);
      const read = await readMcpJsonServers(file);
      const fromFile = read?.servers && admitServers(read.servers, file, env.trust);
      tooDeep = read?.tooDeep ?? new Map();
      // What servers are given in env and headers is secret wherever it shows up later.
      const declare = (value: string, label: string) => env.addSecret(value, label);
      declareServerSecrets(config.mcpServers, declare);
      declareServerSecrets(fromFile, declare);
      if (!fromFile) return;
      env.addFile(file);
      // The agent config wins over .mcp.json for a server defined in both.
      return { mcpServers: { ...fromFile, ...((config.mcpServers ?? {}) as Record<string, unknown>) } as never };
    },
    async setup(context) {
      ctx = context;
      const raw = (ctx.config.mcpServers ?? {}) as Record<string, unknown>;
      // Servers given to createHost({ config }) too (the config hook saw those of the files).
      declareServerSecrets(raw, (value, label) => ctx.addSecret(value, label));
      const { servers, problems } = parseServers(raw, { root: ctx.workspace.root });
      for (const [server, at] of tooDeep) {
        if (!Object.hasOwn(raw, server)) problems.push({ server, fatal: true, message: `${at}: nested more than ${MAX_CONFIG_DEPTH} levels deep; no config needs that` });
      }
      for (const p of problems) {
        // Warnings (an unset variable, a likely typo) are config problems; a server that cannot load is a server one.
        ctx.report({
          kind: p.fatal ? "server" : "config",
          name: p.server,
          message: p.fatal ? `MCP server ${p.server} is misconfigured: ${p.message}. Continuing without ${p.server} tools.` : `MCP server ${p.server}: ${p.message}`,
        });
      }
      const names = [...Object.keys(raw), ...[...tooDeep.keys()].filter((n) => !Object.hasOwn(raw, n))];
      const parsed = new Set(servers.map((s) => s.name));
      const others: McpServerStatus[] = [
        ...names
          .filter((n) => !parsed.has(n))
          .map((n) => staticStatus(n, raw[n], "failed", problems.filter((p) => p.server === n && p.fatal).map((p) => p.message).join("; "))),
        ...servers.filter((s) => s.disabled).map((s) => staticStatus(s.name, raw[s.name], "disabled")),
      ];
      const enabled = servers.filter((s) => !s.disabled);
      if (enabled.length === 0) {
        publishStatus(ctx.host, () => names.map((n) => others.find((s) => s.name === n)!));
        return;
      }
      const { McpManager } = await import("./manager.js");
      const m = new McpManager(ctx, enabled, names, others);
      manager = m;
      publishStatus(ctx.host, () => m.status());
      publishControl(ctx.host, { login: (name, print) => m.requests.login(name, print), logout: (name) => m.requests.logout(name), rootsChanged: () => m.rootsChanged() });
      // Nothing starts here: each server is a tool source the host loads when its tools are needed.
    },
    async registerTools(tools) {
      await manager?.registerTools(tools);
    },
    async registerCommands(commands) {
      await manager?.registerCommands(commands);
    },
    async registerSkills(skills) {
      await manager?.skills.register(skills);
    },
    async shutdown() {
      await manager?.close();
    },
  };
});
