/**
 * The MCP plugin: every tool of every configured MCP server becomes a registry tool
 * (`mcp__<server>__<tool>`) that passes the same gate as any other; prompts become slash commands.
 * Written only against the public plugin API. The MCP SDK is loaded only when at least one enabled
 * server is configured, so `agent tools` without servers stays fast.
 */
import { definePlugin, type PluginContext } from "../../core/index.js";
import { parseServers } from "./config.js";
import type { McpManager } from "./manager.js";
import { publishStatus, type McpServerStatus } from "./status.js";

export { getMcpStatus, type McpServerStatus } from "./status.js";

/** Status of a server that never gets a connection: disabled, or rejected by config validation. */
function staticStatus(name: string, raw: unknown, status: "disabled" | "failed", error?: string): McpServerStatus {
  const e = (raw && typeof raw === "object" ? raw : {}) as { command?: unknown; args?: unknown; url?: unknown; httpUrl?: unknown; type?: unknown };
  const url = typeof e.url === "string" ? e.url : typeof e.httpUrl === "string" ? e.httpUrl : undefined;
  const args = Array.isArray(e.args) ? e.args.map(String) : [];
  const transport = typeof e.command === "string" ? "stdio" : e.type === "sse" ? "sse" : e.type === "http" || e.httpUrl ? "http" : "auto";
  return {
    name,
    transport,
    status,
    tools: 0,
    prompts: 0,
    resources: false,
    error,
    target: url ?? [typeof e.command === "string" ? e.command : "", ...args].join(" ").trim(),
  };
}

export default definePlugin(() => {
  let ctx: PluginContext;
  let manager: McpManager | undefined;
  /** The `mcpServers` the current manager was built from. */
  let builtFrom = "";

  async function init(): Promise<void> {
    const raw = (ctx.config.mcpServers ?? {}) as Record<string, unknown>;
    builtFrom = JSON.stringify(raw);
    const { servers, problems } = parseServers(raw, { root: ctx.workspace.root });
    for (const p of problems) {
      // Warnings (an unset variable, a likely typo) are config problems; a server that cannot load is an MCP one.
      ctx.report({
        kind: p.fatal ? "mcp" : "config",
        name: p.server,
        message: p.fatal ? `MCP server ${p.server} is misconfigured: ${p.message}. Continuing without ${p.server} tools.` : `MCP server ${p.server}: ${p.message}`,
      });
    }
    const names = Object.keys(raw);
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
    // Connecting starts now, while the other plugins set up; registerTools waits for it.
    void m.start();
  }

  return {
    name: "mcp",
    async setup(context) {
      ctx = context;
      await init();
    },
    async registerTools(tools) {
      // A `config` hook ran after setup and changed the servers: start over with the new list.
      if (JSON.stringify(ctx.config.mcpServers ?? {}) !== builtFrom) {
        await manager?.close();
        manager = undefined;
        await init();
      }
      await manager?.registerTools(tools);
    },
    async registerCommands(commands) {
      await manager?.registerCommands(commands);
    },
    async shutdown() {
      await manager?.close();
    },
  };
});
