/**
 * All configured servers: connects them in parallel, turns their tools into registry tools, their
 * prompts into slash commands, their resources into one read-only tool each and the skills they serve
 * into registry skills (skills/server-skills.ts), and keeps the registry in step when a server's
 * lists change, it crashes or it comes back. What servers ask of the client and the logins are
 * `requests` (client/requests.ts): callers use it directly.
 */
import { type CommandDefinition, type CommandRegistrar, type JsonSchema, type PluginContext, type ToolCallContext, type ToolDefinition, type ToolRegistrar, type ToolReturn, type ToolUnavailable } from "../../core/index.js";
import { redactString } from "../../kit/index.js";
import type { Prompt, Tool } from "@modelcontextprotocol/client";
import { describeTarget, type ServerConfig } from "./config.js";
import { McpConnection, type ConnectionListener } from "./connection.js";
import { promptToText, resourceContentsToText } from "./content.js";
import { ClientRequests } from "./client/requests.js";
import { authState, type AuthEnv } from "./oauth/store.js";
import { namesFor, prefixFor, serverParts, shortHash } from "./naming.js";
import { argumentHint, parsePromptArgs } from "./prompt-args.js";
import { checkStructured } from "./output-schema.js";
import { mcpToolRisk } from "./risk.js";
import { undeclaredDialect } from "./schema-dialect.js";
import { McpSkills } from "./skills/server-skills.js";
import { descriptors, mentionsTooManyFiles, tooManyFilesReason } from "./transport/descriptors.js";
import { REMOTE_COST, STDIO_COST, StartQueue } from "./transport/start-queue.js";
import type { McpServerStatus } from "./status.js";
import { cacheDir, cacheKey, cacheReadDirs, knownEra, readCachedTools, writeCachedTools, type CachedTools } from "./tool-cache.js";

type Def = { description: string; inputSchema?: unknown; risk?: string; timeoutMs?: number; maxOutputBytes?: number; argumentHint?: string };
/** Registry name → the definition registered under it (compared by signature only when a list is read again). */
type Registered = Map<string, object>;

function signature(def: Def): string {
  return JSON.stringify([def.description, def.inputSchema, def.risk, def.timeoutMs, def.maxOutputBytes, def.argumentHint]);
}

/** Bring what is registered for one server in line with `desired`: remove what changed or went away, add what is new. */
function sync<D extends { name: string; description: string }>(
  registrar: { add(def: D): boolean; remove(name: string): boolean },
  registered: Registered,
  desired: Map<string, D>,
): void {
  for (const [name, held] of registered) {
    const next = desired.get(name);
    // Unchanged, the definition already registered stays (tools compare against it on every call).
    if (next && signature(next) === signature(held as Def)) desired.set(name, held as D);
    else {
      registrar.remove(name);
      registered.delete(name);
    }
  }
  for (const [name, def] of desired) {
    if (!registered.has(name) && registrar.add(def)) registered.set(name, def);
  }
}

export class McpManager implements ConnectionListener {
  readonly connections: McpConnection[];
  private readonly parts: Map<string, string>;
  private tools: ToolRegistrar | undefined;
  private commands: CommandRegistrar | undefined;
  private readonly registeredTools = new Map<string, Registered>();
  private readonly registeredCommands = new Map<string, Registered>();
  private readonly resourceTools = new Map<string, string>();
  /** Skipped tools already reported, per server (`name\0reason`), so a re-listing does not repeat them. */
  private readonly reportedSkips = new Map<string, Set<string>>();
  /** The skills servers serve (registered by the plugin's `registerSkills`). */
  readonly skills: McpSkills;
  /**
   * Tool lists from the disk cache, by server, read the first time they are asked for (a model request,
   * a status, a connection): `agent call read_file` reads none. `null`: no usable entry.
   */
  private readonly cached = new Map<string, CachedTools | null>();
  private readonly cacheDir: string;
  private readonly cacheReadDirs: string[];
  private readonly primed = new Set<string>();
  readonly authEnv: AuthEnv;
  /** What servers ask of the client (sampling, roots, elicitation) and the logins (`agent mcp login`, `/mcp login`). */
  readonly requests: ClientRequests;
  /** First connections wait here for descriptors; `refused`: servers never started for want of them. */
  private readonly startQueue = new StartQueue();
  private readonly firsts = new Map<McpConnection, Promise<void>>();
  private readonly refused = new Set<McpConnection>();

  /**
   * `allNames`: every configured server, disabled ones too, so names stay the same when one is
   * toggled. `others`: the status of servers that are not connected at all (disabled, misconfigured).
   */
  constructor(
    private readonly ctx: PluginContext,
    servers: ServerConfig[],
    private readonly allNames: string[],
    private readonly others: McpServerStatus[] = [],
  ) {
    this.parts = serverParts(allNames);
    // OAuth tokens are the user's (their config folder), never the project's.
    this.authEnv = { userConfigDir: ctx.userConfigDir, declare: (value, label) => ctx.addSecret(value, label) };
    this.requests = new ClientRequests(ctx, this.authEnv, (name) => this.connections.find((c) => c.name === name), allNames);
    this.connections = servers.map((s) => new McpConnection(s, ctx.workspace.root, this, this.requests, ctx.processes, this.authEnv));
    this.skills = new McpSkills(ctx, this.connections, (c) => this.resourceTools.get(c.name));
    this.cacheDir = cacheDir(ctx.workspace.root);
    this.cacheReadDirs = cacheReadDirs(ctx.workspace.root);
  }

  private cache(c: McpConnection): CachedTools | undefined {
    if (!this.cached.has(c.name)) this.cached.set(c.name, readCachedTools(this.cacheReadDirs, c.config, cacheKey(c.config, this.ctx.workspace.root)) ?? null);
    return this.cached.get(c.name) ?? undefined;
  }

  /** For a model request that should not wait: the cached tools are registered now, if there are any. */
  private prime(c: McpConnection): boolean {
    if (c.status === "connected") return true;
    if (!this.cache(c)) return false;
    if (!this.primed.has(c.name)) {
      this.primed.add(c.name);
      this.syncTools(c);
    }
    return true;
  }

  /** Connect every server not connected yet, in parallel; failures are reported as they happen. */
  start(): Promise<void> {
    return Promise.all(this.connections.map((c) => this.connect(c))).then(() => {});
  }

  /** A server's first connection (once): started by a call, a run or a listing, never by opening the host. */
  connect(c: McpConnection): Promise<void> {
    const known = this.firsts.get(c);
    if (known) return known;
    const cost = c.config.transport === "stdio" ? STDIO_COST : REMOTE_COST;
    // A server known to speak 2025 is not asked `server/discover` again (a day at most: it may be upgraded).
    c.knownEra = knownEra(this.cache(c));
    const first = this.startQueue.run(cost, () => c.start()).then((reason) => {
      if (reason) this.refuse(c, reason);
    });
    this.firsts.set(c, first);
    return first;
  }

  /** Not started at all: the descriptors it needs are not there (transport/start-queue.ts). */
  private refuse(c: McpConnection, reason: string): void {
    this.refused.add(c);
    c.status = "failed";
    c.error = reason;
    c.log.note(`not started: ${reason}`);
    this.reportFailed(c);
  }

  // ConnectionListener

  async started(c: McpConnection): Promise<void> {
    this.refused.delete(c);
    // A spawn or pipe that failed with EMFILE says only that: the reason names the limit.
    if (c.status === "failed" && c.error && mentionsTooManyFiles(c.error)) c.error = `${tooManyFilesReason(descriptors())} (${c.error})`;
    if (c.status !== "connected") await this.requests.offerLogin(c);
    if (c.status !== "connected") return this.reportFailed(c);
    this.ctx.audit({
      kind: "plugin",
      name: c.name,
      outcome: "connected",
      detail: { transport: c.kind, ms: c.connectMs, tools: c.tools.length, prompts: c.prompts.length, server: c.serverInfo, cache: this.cache(c) ? "warm" : "cold" },
    });
    this.syncTools(c);
    this.syncPrompts(c);
    await this.skills.refresh(c);
  }

  private reportFailed(c: McpConnection): void {
    this.ctx.report({ kind: "server", name: c.name, message: redactString(`MCP server ${c.name} failed to connect: ${c.error}. Continuing without ${c.name} tools.`) });
    // What the cache promised is not there: its tools go (a call to one then says the server is not available).
    this.cached.set(c.name, null);
    this.syncTools(c);
  }

  /**
   * Tools come from the cache when a model request asks whether a server is ready (servers with one),
   * and from each server once it connects: the host loads a server when a call names one of its tools,
   * when a run starts, or when everything is listed.
   */
  async registerTools(registrar: ToolRegistrar): Promise<void> {
    this.tools = registrar;
    for (const c of this.connections) {
      const prefix = prefixFor(this.parts.get(c.name)!);
      registrar.addSource({
        name: `mcp:${c.name}`,
        provides: (tool) => tool.startsWith(prefix),
        ready: () => this.prime(c),
        load: () => this.connect(c),
        unavailable: () => this.unavailable(c),
      });
    }
  }

  /** Why a name of this server's is not registered after it was started: a login it needs, or its failed start. */
  private unavailable(c: McpConnection): ToolUnavailable | undefined {
    if (c.status === "connected") return undefined;
    const needs = c.auth?.provider.needsLogin;
    if (needs) {
      return { kind: "auth", reason: `the MCP server '${c.name}' needs a login${needs.scope ? ` (scope ${needs.scope})` : ""}: run \`agent mcp login ${c.name}\`` };
    }
    if (c.status !== "failed" && c.status !== "disconnected") return undefined;
    return { kind: "failed", reason: redactString(`the MCP server '${c.name}' ${c.status === "failed" ? "failed to start" : "is not available"}: ${c.error ?? "no reason given"}`) };
  }

  async registerCommands(registrar: CommandRegistrar): Promise<void> {
    this.commands = registrar;
    registrar.add(this.statusCommand());
    for (const c of this.connections) this.syncPrompts(c);
  }

  /** Every configured server, in config order. */
  status(): McpServerStatus[] {
    const all = [...this.connectionStatus(), ...this.others];
    return this.allNames.map((n) => all.find((s) => s.name === n)).filter((s): s is McpServerStatus => !!s);
  }

  private connectionStatus(): McpServerStatus[] {
    return this.connections.map((c) => ({
      name: c.name,
      transport: c.kind ?? c.config.transport,
      status: c.status,
      tools: [...(this.registeredTools.get(c.name)?.keys() ?? [])].filter((n) => n !== this.resourceTools.get(c.name)).length,
      prompts: this.registeredCommands.get(c.name)?.size ?? 0,
      resources: this.resourceTools.has(c.name),
      skills: this.skills.count(c),
      connectMs: c.connectMs,
      // What a server says (its name, its stderr in an error) may hold a secret it was given: redacted, as in the audit log.
      error: c.error === undefined ? undefined : redactString(c.error),
      target: describeTarget(c.config),
      server: c.serverInfo ? { name: redactString(String(c.serverInfo.name)), version: redactString(String(c.serverInfo.version)) } : undefined,
      pid: c.status === "connected" ? c.pid : undefined,
      skippedTools: c.skippedTools.length ? c.skippedTools.map((t) => ({ ...t })) : undefined,
      noise: c.noise || undefined,
      log: c.log.file,
      cache: this.cache(c) ? { state: "warm" as const, savedAt: this.cache(c)!.savedAt } : { state: "cold" as const },
      protocol: c.protocol?.version ?? this.cache(c)?.protocol?.version,
      auth: authState(c.config, this.authEnv, c.auth?.provider),
    }));
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  toolsChanged(c: McpConnection): void {
    this.syncTools(c);
  }

  promptsChanged(c: McpConnection): void {
    this.syncPrompts(c);
  }

  resourcesChanged(c: McpConnection): void {
    void this.skills.refresh(c);
  }

  disconnected(c: McpConnection, reason: string): void {
    this.ctx.log.warn(`MCP server ${c.name} disconnected: ${reason}. It will be restarted on the next call.`);
    this.ctx.audit({ kind: "plugin", name: c.name, outcome: "disconnected", detail: { reason } });
  }

  reconnected(c: McpConnection): void {
    this.ctx.log.info(`MCP server ${c.name} reconnected (${c.connectMs} ms).`);
    this.ctx.audit({ kind: "plugin", name: c.name, outcome: "reconnected", detail: { transport: c.kind, ms: c.connectMs, tools: c.tools.length } });
    this.syncTools(c);
    this.syncPrompts(c);
    void this.skills.refresh(c);
  }

  gaveUp(c: McpConnection, reason: string): void {
    this.ctx.report({ kind: "server", name: c.name, message: `MCP server ${c.name} could not be restarted: ${reason}. Its tools fail until /mcp reconnect ${c.name} succeeds.` });
  }

  /** The workspace roots changed: every connected server hears `notifications/roots/list_changed` (and asks again). */
  rootsChanged(): void {
    for (const c of this.connections) c.notifyRootsChanged();
  }

  // Registration

  private syncTools(c: McpConnection): void {
    if (!this.tools) return;
    this.reportSkipped(c);
    const live = c.status === "connected";
    const cache = live ? undefined : this.cache(c);
    // Not connected (yet, or any more): what the cache says, if anything; a server that was live keeps its tools.
    const listed = live || !cache ? c.tools : cache.tools;
    const hasResources = live || !cache ? !!c.capabilities?.resources : cache.resources;
    const part = this.parts.get(c.name)!;
    const names = namesFor(part, listed.map((t) => t.name));
    const taken = new Set(names.values());
    const resourcesName = hasResources
      ? taken.has(`${prefixFor(part)}resources`)
        ? `${prefixFor(part)}resources_${shortHash(c.name)}`
        : `${prefixFor(part)}resources`
      : undefined;
    const desired = new Map<string, ToolDefinition>();
    for (const tool of listed) {
      const name = names.get(tool.name)!;
      desired.set(name, this.toolDefinition(c, tool, name, resourcesName));
    }
    if (resourcesName) {
      desired.set(resourcesName, this.resourcesTool(c, resourcesName));
      this.resourceTools.set(c.name, resourcesName);
    } else this.resourceTools.delete(c.name);
    const registered = this.registeredTools.get(c.name) ?? new Map();
    this.registeredTools.set(c.name, registered);
    sync(this.tools, registered, desired);
    this.skills.reapply(c);
    if (live) {
      const entry: CachedTools = { key: cacheKey(c.config, this.ctx.workspace.root), savedAt: new Date().toISOString(), resources: !!c.capabilities?.resources, tools: c.tools };
      if (c.serverInfo) entry.server = { name: String(c.serverInfo.name), version: String(c.serverInfo.version) };
      if (c.protocol) entry.protocol = c.protocol;
      writeCachedTools(this.cacheDir, c.config, entry);
    }
  }

  /** Each tool the server listed but we could not use, reported once with its name and the reason. */
  private reportSkipped(c: McpConnection): void {
    const seen = this.reportedSkips.get(c.name) ?? new Set<string>();
    this.reportedSkips.set(c.name, seen);
    for (const t of c.skippedTools) {
      const key = `${t.name}\0${t.reason}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.ctx.report({ kind: "server", name: c.name, message: `MCP server ${c.name}: tool ${JSON.stringify(t.name)} skipped: ${t.reason}. Its other tools are available.` });
    }
  }

  private toolDefinition(c: McpConnection, tool: Tool, name: string, readHint: string | undefined): ToolDefinition {
    const cfg = c.config;
    const schema = tool.inputSchema as JsonSchema | undefined;
    const annotations = tool.annotations;
    const def: ToolDefinition = {
      name,
      description: `[MCP:${c.name}] ${tool.description?.trim() || tool.title || annotations?.title || tool.name}`,
      // Kept whole (the gate validates it before anything is sent); only a missing `type` is filled in.
      inputSchema: schema && schema.type === "object" ? schema : { ...(schema ?? {}), type: "object" },
      // MCP's dialect (2020-12) when the schema declares no `$schema`, unless it is plainly draft-07 (schema-dialect.ts).
      schemaDialect: undeclaredDialect(schema),
      // The server's hints may raise the risk, never lower it, unless the user trusts the server (risk.ts).
      risk: mcpToolRisk({ name: tool.name, description: tool.description, annotations }, cfg),
      timeoutMs: cfg.toolTimeout,
      maxOutputBytes: cfg.maxOutputBytes,
      source: `mcp:${c.name}`,
      meta: { mcpServer: c.name, mcpTool: tool.name, ...(annotations ? { annotations } : {}) },
      // A host with many servers sends only the names of their tools until the model searches (tool-search).
      deferLoading: true,
      // Its run only talks to the server: the gate need not track call depth through it (faster calls).
      callsTools: false,
      run: (input, ctx) => {
        // The usual case, connected and this definition current: straight to the server.
        const sent = c.status === "connected" && this.registeredTools.get(c.name)?.get(name) === def ? c.callTool(tool.name, input, ctx, readHint) : this.callWhenCurrent(c, tool.name, name, def, input, ctx, readHint);
        // A tool with an output schema has its structured result checked against it (output-schema.ts).
        return tool.outputSchema ? sent.then((r) => checkStructured(c.name, tool, r)) : sent;
      },
    };
    return def;
  }

  /**
   * A call to a tool registered before its server ran (from the cache), or while it reconnects: start
   * the server, then run it only if the server still offers the tool as it was when the call was
   * validated and permitted; otherwise the model is told, and the live definition is registered.
   */
  private async callWhenCurrent(c: McpConnection, mcpName: string, name: string, def: object, input: unknown, ctx: ToolCallContext, readHint: string | undefined): Promise<ToolReturn> {
    await this.connect(c);
    // Never started (no descriptors): not started behind the queue's back either.
    if (this.refused.has(c)) return { output: `MCP server ${c.name} is not available: ${c.error}. Run /mcp reconnect ${c.name} to try again.`, isError: true };
    // A cached tool of a server whose first start failed (or that needs a login): said as for a name it never had.
    if (c.status === "failed" && !c.serverInfo) return { output: this.unavailable(c)!.reason, isError: true };
    const now = this.registeredTools.get(c.name)?.get(name);
    if (c.status === "connected" && now === undefined) {
      return { output: `Tool ${name} is no longer offered by MCP server ${c.name} (it was in the cached list of its tools); the current tools are registered now.`, isError: true };
    }
    if (c.status === "connected" && now !== def) {
      return {
        output: `MCP server ${c.name} describes ${name} differently from its cached list (its description, input schema or risk changed), so this call was not sent; the current definition is registered now: call it again.`,
        isError: true,
      };
    }
    return c.callTool(mcpName, input, ctx, readHint);
  }

  private resourcesTool(c: McpConnection, name: string): ToolDefinition {
    return {
      name,
      description:
        `[MCP:${c.name}] List or read the resources of MCP server "${c.name}". ` +
        `Call with {} to list them (with their URIs), {"uri": "..."} to read one (also the files of its skills, skill://...), {"cursor": "..."} for the next page of a long listing.`,
      inputSchema: {
        type: "object",
        properties: {
          uri: { type: "string", description: "URI of the resource to read; omit to list resources" },
          cursor: { type: "string", description: "Pagination cursor returned by a previous listing" },
        },
        additionalProperties: false,
      },
      risk: "read",
      timeoutMs: c.config.toolTimeout,
      maxOutputBytes: c.config.maxOutputBytes,
      source: `mcp:${c.name}`,
      meta: { mcpServer: c.name, mcpResources: true },
      deferLoading: true,
      run: async (input: { uri?: string; cursor?: string }, ctx) => {
        // Through the skills: a file of a skill listed with digests is checked against its digest.
        if (input.uri) return resourceContentsToText(await this.skills.readResource(c, input.uri, ctx.signal));
        const { resources, templates, nextCursor } = await c.listResources(input.cursor, ctx.signal);
        const lines: string[] = [];
        for (const r of resources) {
          lines.push(`- ${r.uri}${r.name ? ` — ${r.name}` : ""}${r.mimeType ? ` (${r.mimeType})` : ""}${r.description ? `: ${r.description.replace(/\s+/g, " ").slice(0, 200)}` : ""}`);
        }
        if (templates.length) {
          lines.push("", "Resource templates (fill in the {placeholders} to get a URI):");
          for (const t of templates) lines.push(`- ${t.uriTemplate}${t.name ? ` — ${t.name}` : ""}${t.description ? `: ${t.description.replace(/\s+/g, " ").slice(0, 200)}` : ""}`);
        }
        if (nextCursor) lines.push("", `More resources: call again with {"cursor": ${JSON.stringify(nextCursor)}}.`);
        if (!resources.length && !templates.length) return `MCP server ${c.name} lists no resources.`;
        return lines.join("\n");
      },
    };
  }

  private syncPrompts(c: McpConnection): void {
    if (!this.commands) return;
    const part = this.parts.get(c.name)!;
    const names = namesFor(part, c.prompts.map((p) => p.name));
    const desired = new Map<string, CommandDefinition>();
    for (const prompt of c.prompts) {
      const name = names.get(prompt.name)!;
      desired.set(name, this.promptCommand(c, prompt, name));
    }
    const registered = this.registeredCommands.get(c.name) ?? new Map();
    this.registeredCommands.set(c.name, registered);
    sync(this.commands, registered, desired);
  }

  private promptCommand(c: McpConnection, prompt: Prompt, name: string): CommandDefinition {
    const specs = prompt.arguments ?? [];
    return {
      name,
      description: `[MCP:${c.name}] ${prompt.description?.trim() || prompt.title || prompt.name}`,
      argumentHint: argumentHint(specs),
      source: `mcp:${c.name}`,
      run: async (args, { signal }) => {
        const result = await c.getPrompt(prompt.name, parsePromptArgs(args, specs), signal);
        return { prompt: promptToText(result) };
      },
    };
  }

  /** `/mcp`: server status; `/mcp reconnect <server>` restarts one. */
  private statusCommand(): CommandDefinition {
    return {
      name: "mcp",
      description: "Show MCP servers and their status; /mcp reconnect <server> restarts one, /mcp login <server> authorizes one (OAuth)",
      argumentHint: "[reconnect <server> | login <server>]",
      run: async (args) => {
        const [verb, target] = args.trim().split(/\s+/);
        if (verb === "reconnect") {
          const c = this.connections.find((x) => x.name === target);
          if (!c) return `No MCP server named "${target ?? ""}". Servers: ${this.connections.map((x) => x.name).join(", ")}.`;
          try {
            await c.restart();
            return `MCP server ${c.name} reconnected: ${c.tools.length} tools.`;
          } catch (err) {
            return `MCP server ${c.name} could not be reconnected: ${(err as Error).message}`;
          }
        }
        if (verb === "login") {
          try {
            const r = await this.requests.login(target ?? "", (line) => this.ctx.log.warn(line));
            return r.open ? `MCP server ${target} did not ask for authorization.` : `Logged in to ${target}${r.scope ? ` (scope ${r.scope})` : ""}.`;
          } catch (err) {
            return `Login to ${target ?? ""} failed: ${(err as Error).message}`;
          }
        }
        if (verb) return "Usage: /mcp [reconnect <server> | login <server>]";
        return this.status()
          .map((s) => `${s.name}: ${s.status} (${s.transport}), ${s.tools} tools${s.skills ? `, ${s.skills} skills` : ""}${s.auth && s.auth.state !== "none" ? `, auth: ${s.auth.state}` : ""}${s.error ? ` — ${s.error}` : ""}`)
          .join("\n");
      },
    };
  }
}
