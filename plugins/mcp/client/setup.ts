/**
 * The SDK client of one connection: our capabilities (elicitation answered with a form's defaults,
 * the skills extension), and its handlers for what a server sends unasked: list changes, log
 * messages, errors, the end of the connection. Kept apart from connection.ts, which decides what
 * these mean for the connection.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config.js";
import { oneLine } from "../../../kit/index.js";
import type { loadCore } from "../transport/sdk.js";
import type { ServerLog } from "../transport/server-log.js";
import { SKILLS_EXTENSION } from "../skills/skill-uris.js";

declare const __AGENT_VERSION__: string;
export const CLIENT_INFO = { name: "agent-host", version: typeof __AGENT_VERSION__ === "string" ? __AGENT_VERSION__ : "0.0.0-dev" };

export interface ClientHooks {
  readonly config: ServerConfig;
  readonly log: ServerLog;
  /** A server's `elicitation/create`: asked in the terminal, else answered as the config says (elicitation.ts). */
  elicit(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** A server's `sampling/createMessage` (sampling.ts): answered, or thrown as a JSON-RPC error. */
  sample(params: unknown, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** The workspace roots, as `roots/list` answers them (file:// URIs). */
  roots(): { uri: string; name: string }[];
  listChanged(client: Client, what: "tools" | "prompts" | "resources"): void;
  closed(client: Client): void;
}

/** How the protocol revision is agreed with a server: its `protocol` key (config.ts). */
export function negotiation(config: ServerConfig) {
  if (config.protocol === "2025") return { mode: "legacy" as const };
  if (config.protocol === "2026-07-28") return { mode: { pin: "2026-07-28" } };
  // A stdio server that never answers `server/discover` speaks 2025: the probe waits a few seconds, not the connect timeout.
  return { mode: "auto" as const, probe: { timeoutMs: Math.min(PROBE_TIMEOUT_MS, config.connectTimeout) } };
}

/** How long a stdio server may stay silent on `server/discover` before it is taken for a 2025 server. */
export const PROBE_TIMEOUT_MS = 5_000;

export function makeClient(sdk: Awaited<ReturnType<typeof loadCore>>, hooks: ClientHooks): Client {
  const { config, log } = hooks;
  const elicit = config.elicitation !== "decline";
  // The skills extension (SEP-2640) is declared as SEP-2133 negotiates extensions, unless turned off for this server.
  const extensions = config.skills === false ? undefined : { [SKILLS_EXTENSION]: {} };
  const sampling = config.sampling !== "deny";
  const capabilities = { ...(config.roots ? { roots: { listChanged: true } } : {}), ...(sampling ? { sampling: {} } : {}), ...(elicit ? { elicitation: { form: {}, url: {} } } : {}), ...(extensions ? { extensions } : {}) };
  const client = new sdk.Client(CLIENT_INFO, { capabilities, versionNegotiation: negotiation(config) });
  // Roots: the folders the host's tools may touch (project root, workspace.roots, --add-dir).
  if (config.roots) client.setRequestHandler("roots/list", async () => ({ roots: hooks.roots() }));
  if (sampling) client.setRequestHandler("sampling/createMessage", async (request, ctx) => hooks.sample(request.params, ctx.mcpReq.signal) as never);
  if (elicit) {
    client.setRequestHandler("elicitation/create", async (request) => hooks.elicit(request.params as Record<string, unknown>) as never);
  }
  client.setNotificationHandler("notifications/tools/list_changed", () => hooks.listChanged(client, "tools"));
  client.setNotificationHandler("notifications/prompts/list_changed", () => hooks.listChanged(client, "prompts"));
  client.setNotificationHandler("notifications/resources/list_changed", () => hooks.listChanged(client, "resources"));
  // Log messages a server sends over the protocol go to its log file, like its stderr.
  client.setNotificationHandler("notifications/message", (n) => {
    const data = typeof n.params.data === "string" ? n.params.data : JSON.stringify(n.params.data);
    log.note(`server ${n.params.level}${n.params.logger ? ` (${n.params.logger})` : ""}: ${data}`);
  });
  client.onerror = (err) => {
    // The SDK can see a progress notification after the result it belongs to: harmless.
    if (/unknown token/i.test(err.message)) return;
    // On one line: a validation error's message is pretty-printed JSON, whose first line is only `[`.
    log.note(`client: ${oneLine(String(err.message), 500)}`);
  };
  client.onclose = () => hooks.closed(client);
  return client;
}
