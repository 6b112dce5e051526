/**
 * What the MCP servers of a host ask of the client, and the logins they need: sampling (sampling.ts),
 * roots, elicitation (a form in the terminal, elicitation-form.ts; headless its defaults or a
 * decline, elicitation.ts), `agent mcp login/logout` and the login offered in a terminal (oauth/index.ts).
 * Kept apart from manager.ts, which owns the registrations.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { AgentError, type PluginContext } from "../../../core/index.js";
import type { McpConnection, ServerRequests } from "../connection.js";
import { answerWithDefaults } from "./elicitation.js";
import type { AuthEnv } from "../oauth/store.js";
import { Sampler } from "./sampling.js";

export class ClientRequests implements ServerRequests {
  private readonly sampler: Sampler;
  /** Servers whose login was offered in this host (asked once). */
  private readonly offered = new Set<string>();

  constructor(
    private readonly ctx: PluginContext,
    private readonly authEnv: AuthEnv,
    /** The enabled server of that name (the manager's connections). */
    private readonly findConnection: (name: string) => McpConnection | undefined,
    private readonly allNames: readonly string[],
  ) {
    this.sampler = new Sampler(ctx);
  }

  async sample(c: McpConnection, params: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    try {
      return await this.sampler.createMessage(c.config, params as Parameters<Sampler["createMessage"]>[1], signal);
    } catch (err) {
      this.sampler.refused(c.config, (err as Error).message);
      throw err;
    }
  }

  /**
   * The workspace roots, and for a stdio server also the folders its command line names: a server that
   * confines itself to its client's roots (server-filesystem) replaces its own folders with these, so a
   * `.mcp.json` written for a client without roots (`server-filesystem ~/notes`) keeps its folder.
   */
  roots(c: McpConnection): { uri: string; name: string }[] {
    const dirs = [...this.ctx.workspace.roots];
    if (c.config.command) {
      const base = c.config.cwd ?? this.ctx.workspace.root;
      for (const arg of c.config.args) {
        if (!arg || arg.startsWith("-")) continue;
        const dir = path.resolve(base, arg);
        if (!dirs.includes(dir) && isDirectory(dir)) dirs.push(dir);
      }
    }
    return dirs.map((r) => ({ uri: pathToFileURL(r).href, name: path.basename(r) || r }));
  }

  /** In a terminal the user answers the form (elicitation-form.ts); headless, its defaults or a decline (elicitation.ts). */
  async elicit(c: McpConnection, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const message = String(params.message ?? "");
    if (this.ctx.canAskUser()) {
      const { askForm } = await import("./elicitation-form.js");
      const answer = await askForm(c.name, params, (q) => this.ctx.askUser(q));
      // What the user typed may be personal: the audit keeps the action and the field names only.
      const fields = answer.action === "accept" ? Object.keys(answer.content ?? {}) : [];
      this.ctx.audit({ kind: "plugin", name: c.name, outcome: `elicitation_${answer.action}`, detail: { message, by: "user", fields } });
      return answer;
    }
    const answer = answerWithDefaults(params);
    const accepted = answer.action === "accept";
    const what = accepted ? "answered with the defaults of its form" : "declined (no terminal to ask, and no default for every required field)";
    this.ctx.log.info(`MCP server ${c.name} asked for input ("${message.slice(0, 200)}"); ${what}.`);
    this.ctx.audit({ kind: "plugin", name: c.name, outcome: accepted ? "elicitation_defaults" : "elicitation_declined", detail: { message } });
    return answer;
  }

  /** `agent mcp login <server>`: the browser (or client_credentials) login; a live session reconnects with the new tokens. */
  async login(name: string, print: (line: string) => void): Promise<{ scope?: string; expiresAt?: number; open?: boolean }> {
    const c = this.remoteConnection(name);
    const { login } = await import("../oauth/index.js");
    const result = await login(c.config, this.authEnv, print);
    this.ctx.audit({ kind: "plugin", name: c.name, outcome: "oauth_login", detail: { scope: result.scope ?? null } });
    c.auth = undefined;
    if (c.status !== "idle") await c.restart().catch(() => {});
    return result;
  }

  async logout(name: string): Promise<boolean> {
    const c = this.remoteConnection(name);
    this.ctx.audit({ kind: "plugin", name: c.name, outcome: "oauth_logout" });
    c.auth = undefined;
    return (await import("../oauth/index.js")).logout(c.config, this.authEnv);
  }

  /** In a terminal (the interactive session, a command with one), a server that needs a login offers it, once. */
  async offerLogin(c: McpConnection): Promise<void> {
    if (!c.auth?.provider.needsLogin || !this.ctx.canAskUser() || this.offered.has(c.name)) return;
    this.offered.add(c.name);
    const scope = c.auth.provider.needsLogin.scope;
    const answer = await this.ctx.askUser(`? MCP server ${c.name} needs authorization${scope ? ` (scope ${scope})` : ""}. Log in now? (opens the browser)\n  y yes   n no (later: agent mcp login ${c.name})\n> `);
    if (!answer || !/^y(es)?$/i.test(answer.trim())) return;
    try {
      await this.login(c.name, (line) => this.ctx.log.warn(line));
      if (c.status !== "connected") await c.restart();
    } catch (err) {
      this.ctx.log.warn(`login to ${c.name} failed: ${(err as Error).message}`);
    }
  }

  private remoteConnection(name: string): McpConnection {
    const c = this.findConnection(name);
    if (!c) throw new AgentError("E_USAGE", `no enabled MCP server named "${name}"${this.allNames.includes(name) ? " (it is disabled or misconfigured)" : ""}`);
    if (!c.config.url) throw new AgentError("E_USAGE", `MCP server ${name} is a local (stdio) server: it has no login`);
    return c;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
