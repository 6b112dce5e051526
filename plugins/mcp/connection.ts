/**
 * One MCP server: connecting (bounded by its connectTimeout), listing tools and prompts, calling,
 * noticing a crash, restarting on the next call (a few attempts with backoff), and shutting down.
 * The SDK is imported here only when a connection opens (through transport/sdk.ts); a stdio server is
 * spawned first so it boots while the SDK loads.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import type {
  CallToolResult,
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/client";
import type { ProcessTracker, ToolCallContext, ToolReturn } from "../../core/index.js";
import { sdkSignal } from "./transport/call-signal.js";
import { makeClient, type ClientHooks } from "./client/setup.js";
import { globMatcher, type ServerConfig, type TransportKind } from "./config.js";
import { toolResultToReturn } from "./content.js";
import { ConnectTimeoutError, describeError, describeServerError, httpStatus, isConnectionClosed, isRequestTimeout, rejectedAnswer, serverErrorAnswer } from "./errors.js";
import type { GuardedTransport } from "./transport/frame-guard.js";
import type { RemoteOpener } from "./transport/http-open.js";
// Remote servers only: a host with stdio servers alone never loads the HTTP and OAuth code.
import type { AuthEnv, ServerAuth } from "./oauth/index.js";
import { loadCore } from "./transport/sdk.js";
import { logFileFor, ServerLog } from "./transport/server-log.js";
import { StdioServerProcess } from "./transport/stdio-process.js";
import type { SkippedTool } from "./tool-list.js";
import type { ProtocolEra } from "./tool-cache.js";
import { declaresHeaders } from "./x-mcp-header.js";
import { disposeSession, explainFailure, sleep, type Attempt, type OpenedSession, type Session } from "./session.js";

/** The gate's signal owns a call's deadline (and cancels it); the SDK's own timer must never fire first. */
export const NO_SDK_TIMEOUT = 2 ** 31 - 1;
export const LIST_TIMEOUT_MS = 30_000;
/** Prompts and resources read outside a tool call (slash commands) get this long. */
export const REQUEST_TIMEOUT_MS = 60_000;
export const MAX_RECONNECT_ATTEMPTS = 3;
export const RECONNECT_BASE_DELAY_MS = 250;

/** `idle`: not started yet (servers start when their tools are first needed). */
export type ConnectionStatus = "idle" | "connecting" | "connected" | "failed" | "disconnected";

/** What the manager hears about a connection's life. */
export interface ConnectionListener {
  /** The first connection ended, either way (see `status`): the registry is brought in line before `start()` resolves. */
  started(conn: McpConnection): Promise<void>;
  toolsChanged(conn: McpConnection): void;
  promptsChanged(conn: McpConnection): void;
  /** `notifications/resources/list_changed` (skills are resources). */
  resourcesChanged(conn: McpConnection): void;
  disconnected(conn: McpConnection, reason: string): void;
  reconnected(conn: McpConnection): void;
  gaveUp(conn: McpConnection, reason: string): void;
}

/** What a server asks of the client, answered for the connection (client/requests.ts). */
export interface ServerRequests {
  /** `elicitation/create` (a form, or a URL to open): the answer for the server. */
  elicit(conn: McpConnection, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** A server's `sampling/createMessage`, after the user's yes (client/sampling.ts). */
  sample(conn: McpConnection, params: unknown, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** The roots offered to a server (`roots/list`). */
  roots(conn: McpConnection): { uri: string; name: string }[];
}

/** A 2026-07-28 Streamable HTTP session: tools' `x-mcp-header` declarations are checked and mirrored (x-mcp-header.ts). */
function headerRules(client: Client, kind: TransportKind | undefined): boolean {
  return client.getProtocolEra() === "modern" && kind !== "stdio";
}

/** Connect options: a server the cache knows speaks 2025 skips the `server/discover` probe (unless the config pins a revision). */
export function connectOptions(config: ServerConfig, era: "legacy" | undefined, timeout: number): { timeout: number; prior?: { kind: "legacy" } } {
  return era === "legacy" && config.protocol === "auto" ? { timeout, prior: { kind: "legacy" } } : { timeout };
}

/** Wait for `p`, but give up (without stopping it) when `signal` aborts. */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}

export class McpConnection {
  status: ConnectionStatus = "idle";
  /** The transport of the live (or last) session. */
  kind: TransportKind | undefined;
  private listed: Tool[] = [];
  /** The tools that declare `x-mcp-header` properties, by name. */
  private headerTools = new Map<string, Tool>();
  /** Tools the server listed that were skipped (invalid schemas), with the reason. */
  skippedTools: SkippedTool[] = [];
  prompts: Prompt[] = [];
  capabilities: ServerCapabilities | undefined;
  serverInfo: Implementation | undefined;
  /** The revision agreed with the server on the live (or last) session. */
  protocol: { version: string; era: ProtocolEra } | undefined;
  /** Set by the manager from the tool cache: a server known to speak 2025 is not probed with `server/discover`. */
  knownEra: "legacy" | undefined;
  connectMs: number | undefined;
  error: string | undefined;
  readonly log: ServerLog;
  private session: Session | undefined;
  private readonly pending = new Set<Partial<Session>>();
  private readonly disposing = new Set<Promise<void>>();
  private reconnecting: Promise<Session> | undefined;
  private attempts = 0;
  private first: Promise<void> | undefined;
  private firstPending = false;
  private closing = false;
  private readonly refreshing = { tools: false, prompts: false };
  private readonly dirty = { tools: false, prompts: false };
  private readonly keepTool: (name: string) => boolean;
  private readonly hooks: ClientHooks;
  private readonly remote: RemoteOpener;
  /** The OAuth provider of a remote server (created on its first connection). */
  auth: ServerAuth | undefined;

  get tools(): Tool[] {
    return this.listed;
  }
  set tools(tools: Tool[]) {
    this.listed = tools;
    this.headerTools = new Map(tools.filter((t) => declaresHeaders(t.inputSchema)).map((t) => [t.name, t]));
  }

  constructor(
    readonly config: ServerConfig,
    private readonly root: string,
    private readonly listener: ConnectionListener,
    private readonly requests: ServerRequests,
    private readonly processes: ProcessTracker,
    readonly authEnv?: AuthEnv,
  ) {
    this.log = new ServerLog(logFileFor(root, config.name));
    const include = config.includeTools?.length ? globMatcher(config.includeTools) : () => true;
    const exclude = config.excludeTools?.length ? globMatcher(config.excludeTools) : () => false;
    this.keepTool = (name) => include(name) && !exclude(name);
    this.hooks = {
      config,
      log: this.log,
      elicit: (params) => this.requests.elicit(this, params),
      roots: () => this.requests.roots(this),
      sample: (params, signal) => this.requests.sample(this, params, signal),
      listChanged: (client, what) => {
        if (what !== "resources") this.refresh(client, what);
        else if (this.session?.client === client) this.listener.resourcesChanged(this);
      },
      closed: (client) => {
        if (this.session?.client === client) this.lose(this.session);
      },
    };
    this.remote = {
      config,
      note: (line) => this.log.note(line),
      client: async () => makeClient(await loadCore(), this.hooks),
      guard: async (transport) => this.guard(await loadCore(), transport),
      listAll: (state, client, remaining) => this.listAll(state, client, remaining),
      connectOptions: (timeout) => connectOptions(config, this.protocol ? (this.protocol.era === "legacy" ? "legacy" : undefined) : this.knownEra, timeout),
      auth: async () => (this.auth ??= authEnv ? await (await import("./oauth/index.js")).serverAuth(config, authEnv) : undefined),
    };
  }

  get name(): string {
    return this.config.name;
  }
  get pid(): number | undefined {
    return this.session?.proc?.pid;
  }

  /** Frames and stdout lines of the live session that were refused or ignored (see the server's log). */
  get noise(): number {
    const s = this.session;
    return (s?.guard?.refused.frames ?? 0) + ((s?.transport as { noise?: { lines: number } } | undefined)?.noise?.lines ?? 0);
  }

  /** The first connection (once, however many ask), then the listener's `started`. Never throws: see `status`, `error`. */
  start(): Promise<void> {
    this.first ??= this.firstConnection().then(() => this.listener.started(this));
    return this.first;
  }

  private async firstConnection(): Promise<void> {
    const started = performance.now();
    this.status = "connecting";
    this.firstPending = true;
    try {
      const s = await this.attempt();
      if (this.closing) return void (await this.dispose(s));
      this.adopt(s);
    } catch (err) {
      this.status = "failed";
      this.error = (err as Error).message;
      this.log.note(`failed to connect: ${this.error}`);
    } finally {
      this.firstPending = false;
      this.connectMs = Math.round(performance.now() - started);
    }
  }

  /** The live session, restarting the server first if it is disconnected. */
  ensureConnected(signal?: AbortSignal): Promise<Session> {
    if (this.session && this.status === "connected") return Promise.resolve(this.session);
    // Not started yet, or starting: the first connection, not a restart beside it.
    if (!this.first || this.firstPending) return abortable(this.start().then(() => this.ensureConnected()), signal);
    if (this.closing) return Promise.reject(new Error(`MCP server ${this.name} is shutting down`));
    if (this.status === "failed" && !this.reconnecting) {
      return Promise.reject(new Error(`MCP server ${this.name} is not available: ${this.error}. Run /mcp reconnect ${this.name} to try again.`));
    }
    this.reconnecting ??= this.reconnect().finally(() => (this.reconnecting = undefined));
    return signal ? abortable(this.reconnecting, signal) : this.reconnecting;
  }

  /** `/mcp reconnect`: drop the current session (if any) and connect afresh. */
  async restart(): Promise<void> {
    if (this.closing) throw new Error(`MCP server ${this.name} is shutting down`);
    if (this.reconnecting) {
      await this.reconnecting.catch(() => {});
      if (this.status === "connected") return;
    }
    const old = this.session;
    this.session = undefined;
    await this.dispose(old);
    this.attempts = 0;
    this.status = "disconnected";
    await this.ensureConnected();
  }

  callTool(name: string, args: unknown, ctx: ToolCallContext, readHint?: string): Promise<ToolReturn> {
    const s = this.session;
    if (!s || this.status !== "connected") return this.callToolReconnecting(name, args, ctx, readHint);
    // The usual case, connected: a plain promise chain (one async layer less on every call).
    return this.send(s, name, args, ctx).then(
      (result) => toolResultToReturn(result, readHint),
      (err: unknown) => this.callFailed(err, s, name, args, ctx, readHint),
    );
  }

  private async callToolReconnecting(name: string, args: unknown, ctx: ToolCallContext, readHint?: string): Promise<ToolReturn> {
    const s = await this.ensureConnected(ctx.signal);
    return this.send(s, name, args, ctx).then((result) => toolResultToReturn(result, readHint), (err: unknown) => this.callFailed(err, s, name, args, ctx, readHint));
  }

  private send(s: Session, name: string, args: unknown, ctx: ToolCallContext): Promise<CallToolResult> {
    // A progressToken only when someone hears progress: the SDK's per-request handler (a closure over
    // the call) costs ~8 µs of client CPU and most of the GC of a call at 16 in flight (bench/mcp.mjs).
    // With telemetry on, the call's trace context rides in `_meta` (SEP-414): the server's spans join the trace.
    const trace = ctx.traceContext;
    return s.client.callTool({ name, arguments: args as Record<string, unknown>, ...(trace ? { _meta: { ...trace } } : {}) }, {
      ...this.headerDefinition(s, name),
      signal: sdkSignal(ctx),
      timeout: NO_SDK_TIMEOUT,
      ...(ctx.wantsProgress ? { onprogress: (p: { progress: number; total?: number; message?: string }) => ctx.progress({ progress: p.progress, total: p.total, message: p.message }) } : {}),
    }) as Promise<CallToolResult>;
  }

  /**
   * The definition the SDK mirrors `Mcp-Param-*` headers from (2026-07-28 over HTTP), for a tool that declares
   * some; without its output schema, which the SDK would compile again on every call.
   */
  private headerDefinition(s: Session, name: string): { toolDefinition?: Tool } {
    if (s.kind === "stdio" || !this.headerTools.size) return {};
    const tool = this.headerTools.get(name);
    return tool ? { toolDefinition: { name: tool.name, inputSchema: tool.inputSchema } } : {};
  }

  private async callFailed(err: unknown, s: Session, name: string, args: unknown, ctx: ToolCallContext, readHint?: string): Promise<ToolReturn> {
    if (ctx.aborted) throw err;
    if (!this.sessionExpired(err, s)) throw this.callError(err, s);
    // The server no longer knows our session (it restarted): the call was not run, so open a
    // new session and send it once more.
    this.lose(s, `the server ended the session (${describeError(err, this.config.url)})`, false);
    const again = await this.ensureConnected(ctx.signal);
    let result: CallToolResult;
    try {
      result = await this.send(again, name, args, ctx);
    } catch (err2) {
      if (ctx.aborted) throw err2;
      throw this.callError(err2, again);
    }
    return toolResultToReturn(result, readHint);
  }

  /** Streamable HTTP: a 404 to a request carrying a session id means the session is gone (spec: start a new one). */
  private sessionExpired(err: unknown, s: Session): boolean {
    return s.kind === "http" && httpStatus(err) === 404 && this.session === s;
  }

  async getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    const s = await this.ensureConnected(signal);
    try {
      return await s.client.getPrompt({ name, arguments: args }, { signal, timeout: REQUEST_TIMEOUT_MS });
    } catch (err) {
      throw this.callError(err, s);
    }
  }

  listResources(cursor: string | undefined, signal: AbortSignal): Promise<{ resources: Resource[]; templates: ResourceTemplate[]; nextCursor?: string }> {
    const options = { signal, timeout: NO_SDK_TIMEOUT };
    return this.request(signal, async (client) => {
      const list = await client.listResources(cursor ? { cursor } : undefined, options);
      // Templates are optional for servers; a server without them must not fail the listing.
      const templates = cursor ? [] : await client.listResourceTemplates(undefined, options).then((r) => r.resourceTemplates, () => []);
      return { resources: list.resources, templates, nextCursor: list.nextCursor };
    });
  }

  readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return this.request(signal, (client) => client.readResource({ uri }, { signal, timeout: NO_SDK_TIMEOUT }));
  }

  /** Requests outside a tool call (also ones the SDK has no method for, e.g. `skills/list`), with errors explained like a call's. */
  async request<T>(signal: AbortSignal, send: (client: Client) => Promise<T>): Promise<T> {
    const s = await this.ensureConnected(signal);
    try {
      return await send(s.client);
    } catch (err) {
      if (signal.aborted) throw err;
      throw this.callError(err, s);
    }
  }

  /** `notifications/roots/list_changed` to the live session, if any (a server that does not care ignores it). */
  notifyRootsChanged(): void {
    void this.session?.client.sendRootsListChanged().catch(() => {});
  }

  async close(): Promise<void> {
    this.closing = true;
    const s = this.session;
    this.session = undefined;
    await Promise.all([this.dispose(s), ...[...this.pending].map((p) => this.dispose(p)), ...this.disposing]);
    this.log.close();
  }

  private background(p: Promise<void>): void {
    this.disposing.add(p);
    void p.finally(() => this.disposing.delete(p));
  }

  /** An error from a request, for the model: a dropped connection says so and promises a restart. */
  private callError(err: unknown, s: Session): Error {
    if (this.closing) return new Error(`MCP server ${this.name} was shut down during the call`);
    // The server answered with a JSON-RPC error: a failed call, not a failed connection (whatever the code).
    const answer = serverErrorAnswer(err);
    if (answer) return new Error(describeServerError(answer));
    const rejected = rejectedAnswer(err);
    if (rejected) return new Error(`MCP server ${this.name} sent an answer that was refused: ${rejected.reason.replace(/^the server's answer cannot be used: /, "")}`);
    if (isConnectionClosed(err) || this.session !== s) {
      if (this.session === s) this.lose(s);
      return new Error(`MCP server ${this.name} disconnected during the call: ${this.error ?? "the connection was closed"}. It will be restarted on the next call.`);
    }
    if (isRequestTimeout(err)) return new Error(`MCP server ${this.name} did not answer in time`);
    const code = (err as { code?: unknown })?.code;
    const message = describeError(err, this.config.url);
    return new Error(typeof code === "number" && code < 0 ? `the server answered with error ${code}: ${message}` : message);
  }

  /** One connection attempt, bounded by connectTimeout; whatever it started is stopped on failure. */
  private async attempt(): Promise<OpenedSession> {
    const ms = this.config.connectTimeout;
    const state: Attempt = { stage: "starting the server", session: {} };
    this.pending.add(state.session);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectTimeoutError(ms, state.stage)), ms);
    });
    const work = this.open(state, performance.now() + ms);
    try {
      const s = await Promise.race([work, timeout]);
      if (!s.client.transport) throw new Error(s.proc?.exit ? s.proc.describeExit() : "the server closed the connection right after starting");
      return s;
    } catch (err) {
      const reason = explainFailure(err, state, this.config);
      // Stopping what the attempt started runs in the background (close() waits for it), so a
      // failure is reported without waiting for a stubborn process to die. A late success after a
      // timeout is stopped too.
      this.background(this.dispose(state.session));
      work.then((s) => this.background(this.dispose(s)), () => {});
      throw new Error(reason);
    } finally {
      clearTimeout(timer);
      this.pending.delete(state.session);
    }
  }

  private async open(state: Attempt, deadline: number): Promise<OpenedSession> {
    const c = this.config;
    const remaining = () => Math.max(1, Math.round(deadline - performance.now()));
    if (c.transport !== "stdio") return (await import("./transport/http-open.js")).openRemote(this.remote, state, remaining);
    // What an earlier session (or the cache) found the server speaks: a restart does not ask again.
    const known = this.protocol ? (this.protocol.era === "legacy" ? "legacy" : "modern") : this.knownEra;
    try {
      return await this.openStdio(state, remaining, known === "legacy" ? "legacy" : undefined);
    } catch (err) {
      // A 2025 server built to exit on any request before `initialize` ends at the `server/discover` probe:
      // started again, it gets the 2025 handshake alone.
      const proc = state.session.proc;
      // A server that died of something else (it could not start, or its stderr names the error) is not started twice.
      if (c.protocol !== "auto" || known || !proc?.mayHaveEndedOnProbe() || state.session.client?.getProtocolEra()) throw err;
      this.log.note(`the server ended at server/discover (${proc.describeExit()}); starting it again for the 2025 handshake`);
      await this.dispose(state.session);
      state.session = Object.assign(state.session, { proc: undefined, transport: undefined, guard: undefined, client: undefined });
      return this.openStdio(state, remaining, "legacy");
    }
  }

  private async openStdio(state: Attempt, remaining: () => number, era: "legacy" | undefined): Promise<OpenedSession> {
    const c = this.config;
    // Spawn before loading the SDK: the server boots while the SDK is imported.
    const proc = new StdioServerProcess({ command: c.command!, args: c.args, env: c.env, cwd: c.cwd ?? this.root, log: this.log, processes: this.processes });
    state.session.proc = proc;
    // From here the server is booting while the SDK loads: a timeout names what the server was asked, not
    // "starting" (on a loaded machine the import alone can take most of connectTimeout).
    state.stage = era === "legacy" || c.protocol === "2025" ? "waiting for the server to answer initialize" : "waiting for the server to answer server/discover or initialize";
    const sdk = await loadCore();
    const transport = new sdk.ProcessTransport(proc, this.log);
    const client = makeClient(sdk, this.hooks);
    const guard = this.guard(sdk, transport);
    Object.assign(state.session, { transport, guard, client, kind: "stdio" });
    await client.connect(guard, connectOptions(c, era, remaining()));
    return this.listAll(state, client, remaining);
  }

  private async listAll(state: Attempt, client: Client, remaining: () => number): Promise<OpenedSession> {
    const caps = client.getServerCapabilities();
    state.stage = "listing tools";
    const { tools, skipped } = caps?.tools ? await this.listTools(client, remaining(), state.session.kind) : { tools: [], skipped: [] };
    let prompts: Prompt[] = [];
    if (caps?.prompts) {
      state.stage = "listing prompts";
      // Prompts are extras: a server whose prompt list fails still gives us its tools.
      prompts = await this.listPrompts(client, remaining()).catch((err) => {
        this.log.note(`prompts/list failed: ${describeError(err)}`);
        return [];
      });
    }
    return { ...(state.session as Session), tools, skippedTools: skipped, prompts };
  }

  /** Every tool the server lists, each checked on its own (tool-list.ts): a bad one is skipped, not the server. */
  private async listTools(client: Client, timeout: number, kind: TransportKind | undefined): Promise<{ tools: Tool[]; skipped: SkippedTool[] }> {
    const listed = await (await loadCore()).listTools(client, timeout, this.keepTool, headerRules(client, kind));
    for (const t of listed.skipped) this.log.note(`tool ${JSON.stringify(t.name)} skipped: ${t.reason}`);
    return listed;
  }

  /** The client is connected to this guard, which wraps the transport (transport/frame-guard.ts). */
  private guard(sdk: Awaited<ReturnType<typeof loadCore>>, transport: Transport): GuardedTransport {
    return new sdk.GuardedTransport(transport, { note: (line) => this.log.note(line), stdio: transport instanceof sdk.ProcessTransport });
  }

  private async listPrompts(client: Client, timeout: number): Promise<Prompt[]> {
    return (await loadCore()).listPrompts(client, timeout);
  }

  /** Re-read a list after `notifications/*_changed`; notifications arriving meanwhile coalesce into one more read. */
  private refresh(client: Client, what: "tools" | "prompts"): void {
    // A server that says a list changed but never offered one gets no request for it.
    if (this.session?.client !== client || !this.capabilities?.[what]) return;
    if (this.refreshing[what]) {
      this.dirty[what] = true;
      return;
    }
    this.refreshing[what] = true;
    void (async () => {
      try {
        do {
          this.dirty[what] = false;
          if (this.session?.client !== client) return;
          if (what === "tools") {
            const { tools, skipped } = await this.listTools(client, LIST_TIMEOUT_MS, this.session?.kind);
            if (this.session?.client !== client) return;
            this.tools = tools;
            this.skippedTools = skipped;
            this.listener.toolsChanged(this);
          } else {
            const prompts = await this.listPrompts(client, LIST_TIMEOUT_MS);
            if (this.session?.client !== client) return;
            this.prompts = prompts;
            this.listener.promptsChanged(this);
          }
        } while (this.dirty[what]);
      } catch (err) {
        this.log.note(`could not re-read the ${what} list: ${describeError(err)}`);
      } finally {
        this.refreshing[what] = false;
      }
    })();
  }

  private adopt(s: OpenedSession): void {
    this.session = { client: s.client, transport: s.transport, guard: s.guard, kind: s.kind, proc: s.proc };
    this.kind = s.kind;
    this.status = "connected";
    this.error = undefined;
    this.attempts = 0;
    this.capabilities = s.client.getServerCapabilities();
    this.serverInfo = s.client.getServerVersion();
    const version = s.client.getNegotiatedProtocolVersion();
    const era = s.client.getProtocolEra();
    this.protocol = version && era ? { version, era } : undefined;
    this.tools = s.tools;
    this.skippedTools = s.skippedTools;
    this.prompts = s.prompts;
    this.log.note(`connected over ${s.kind}${this.serverInfo ? ` to ${this.serverInfo.name} ${this.serverInfo.version}` : ""}; ${s.tools.length} tools`);
  }

  /**
   * The live session died (crash, closed stream, oversized message, expired HTTP session).
   * `announce`: tell the user it will be restarted on the next call (not when we restart it at once).
   */
  private lose(s: Session, why?: string, announce = true): void {
    if (this.session !== s) return;
    this.session = undefined;
    if (this.closing) return;
    const closeReason = (s.transport as { closeReason?: string }).closeReason;
    const reason = why ?? closeReason ?? (s.proc?.exit ? s.proc.describeExit() : "the connection was closed");
    this.status = "disconnected";
    this.error = reason;
    this.log.note(`disconnected: ${reason}`);
    this.background(this.dispose(s));
    if (announce) this.listener.disconnected(this, reason);
  }

  private async reconnect(): Promise<Session> {
    let last = this.error ?? "the connection was closed";
    while (this.attempts < MAX_RECONNECT_ATTEMPTS && !this.closing) {
      const delay = this.attempts === 0 ? 0 : RECONNECT_BASE_DELAY_MS * 2 ** (this.attempts - 1);
      this.attempts++;
      if (delay) await sleep(delay);
      if (this.closing) break;
      this.status = "connecting";
      const started = performance.now();
      try {
        const s = await this.attempt();
        if (this.closing) {
          await this.dispose(s);
          break;
        }
        this.adopt(s);
        this.connectMs = Math.round(performance.now() - started);
        this.listener.reconnected(this);
        return this.session!;
      } catch (err) {
        last = (err as Error).message;
        this.error = last;
        this.status = "disconnected";
        this.log.note(`restart attempt ${this.attempts} failed: ${last}`);
      }
    }
    if (this.closing) throw new Error(`MCP server ${this.name} is shutting down`);
    this.status = "failed";
    this.error = `${last} (gave up after ${MAX_RECONNECT_ATTEMPTS} attempts to restart it)`;
    this.listener.gaveUp(this, last);
    throw new Error(`MCP server ${this.name} is not available: ${last}. Gave up after ${MAX_RECONNECT_ATTEMPTS} attempts to restart it; run /mcp reconnect ${this.name} to try again.`);
  }

  private dispose(s: Partial<Session> | undefined): Promise<void> {
    return disposeSession(s, this.closing ? "the host is shutting down" : "the client is closing the connection");
  }
}
