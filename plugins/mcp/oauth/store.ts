/**
 * Where OAuth state of remote MCP servers is kept: per user (the user config folder,
 * `~/.config/agent/mcp-oauth/`, folder 0700), one file per server identity (its URL, hashed into the
 * file name), mode 0600, written atomically. Never in `.mcp.json`, never in the project. Every token
 * and client secret read or written is declared a secret, so it is redacted from the audit log,
 * server logs and CLI output.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/client";
import { updateFileLocked, withFileLock } from "../../../kit/index.js";
import type { ServerConfig } from "../config.js";

export interface StoredAuth {
  /** The server's URL: what the entry is keyed by. */
  url: string;
  client?: OAuthClientInformationMixed;
  /** True when `client` came from dynamic registration or a metadata document (not the config). */
  registered?: boolean;
  /** The authorization server (`issuer`) that registration was made with: another one means registering again (SEP-2352). */
  clientIssuer?: string;
  tokens?: OAuthTokens;
  /** ms since the epoch; from `expires_in` when the tokens were saved. */
  expiresAt?: number;
  savedAt?: string;
  /** Where the server's protected-resource metadata was found (from its WWW-Authenticate). */
  resourceMetadataUrl?: string;
  codeVerifier?: string;
  /** A scope the server asked for (403 insufficient_scope) that the next login requests too. */
  pendingScope?: string;
  /** The scope the last login asked for. */
  loginScope?: string;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

export type DeclareSecret = (value: string, label: string) => void;

export function oauthDir(userConfigDir: string): string {
  return path.join(userConfigDir, "mcp-oauth");
}

/** The identity of a server for its stored credentials: its URL without a fragment. */
export function serverKey(url: string): string {
  const u = new URL(url);
  u.hash = "";
  return u.href;
}

export class OAuthStore {
  private cache: StoredAuth | undefined;
  readonly file: string;

  /** `userConfigDir` undefined (user config turned off): kept in memory, for this host only. */
  constructor(
    userConfigDir: string | undefined,
    readonly url: string,
    private readonly declare: DeclareSecret,
    private readonly label: string,
  ) {
    const key = serverKey(url);
    this.url = key;
    this.file = userConfigDir ? path.join(oauthDir(userConfigDir), `${createHash("sha256").update(key).digest("hex").slice(0, 24)}.json`) : "";
  }

  read(): StoredAuth {
    if (this.cache) return this.cache;
    const data = this.file && existsSync(this.file) ? this.parse(readText(this.file)) : { url: this.url };
    this.declareSecrets(data);
    this.cache = data;
    return data;
  }

  /**
   * Change the stored state: under the file's lock, on what is on disk then (another process may have
   * refreshed the tokens or saved a scope since this one read it), written atomically, mode 0600.
   */
  update(change: (data: StoredAuth) => void): void {
    if (!this.file) {
      const data = structuredClone(this.read());
      change(data);
      this.declareSecrets(data);
      this.cache = data;
      return;
    }
    const dir = path.dirname(this.file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    let next: StoredAuth | undefined;
    updateFileLocked(
      this.file,
      (current) => {
        const data = this.parse(current);
        change(data);
        next = data;
        return `${JSON.stringify(data, null, 2)}\n`;
      },
      0o600,
    );
    this.declareSecrets(next!);
    this.cache = next;
  }

  /** Forget everything about this server (logout); true when there was a login to forget (tokens or a registration). */
  clear(): boolean {
    const had = !!this.cache?.tokens;
    this.cache = { url: this.url };
    if (!this.file) return had;
    return withFileLock(this.file, () => {
      if (!existsSync(this.file)) return false;
      const stored = this.parse(readText(this.file));
      rmSync(this.file, { force: true });
      // What a connection notes on its own (where the metadata is) is no login.
      return !!(stored.tokens || (stored.client && stored.registered));
    });
  }

  /** The file's state; an unreadable file, or one for another URL, is as good as none: the next login writes a new one. */
  private parse(text: string | undefined): StoredAuth {
    try {
      const parsed = text === undefined ? undefined : (JSON.parse(text) as StoredAuth);
      if (parsed && parsed.url === this.url) return parsed;
    } catch {
      /* as none */
    }
    return { url: this.url };
  }

  private declareSecrets(data: StoredAuth): void {
    const t = data.tokens;
    if (t?.access_token) this.declare(t.access_token, `${this.label}.access_token`);
    if (t?.refresh_token) this.declare(t.refresh_token, `${this.label}.refresh_token`);
    if (t?.id_token) this.declare(t.id_token, `${this.label}.id_token`);
    const secret = (data.client as { client_secret?: string } | undefined)?.client_secret;
    if (secret) this.declare(secret, `${this.label}.client_secret`);
    if (data.codeVerifier) this.declare(data.codeVerifier, `${this.label}.code_verifier`);
  }
}

/** What `agent mcp list` shows about a server's authorization. */
export interface AuthState {
  state: "none" | "needs-login" | "authorized" | "expired" | "client-credentials";
  /** ISO time the access token expires. */
  expiresAt?: string;
  scope?: string;
  /** Whether a refresh token is held (an expired token is then renewed without a login). */
  refreshable?: boolean;
}

export function describeStored(data: StoredAuth, now = Date.now()): AuthState {
  if (!data.tokens?.access_token) return { state: "none" };
  const expired = data.expiresAt !== undefined && data.expiresAt <= now;
  return {
    state: expired && !data.tokens.refresh_token ? "expired" : "authorized",
    expiresAt: data.expiresAt ? new Date(data.expiresAt).toISOString() : undefined,
    scope: data.tokens.scope,
    refreshable: !!data.tokens.refresh_token,
  };
}

/** Where a host keeps the OAuth tokens of its servers (the user's config folder), and how it declares them secret. */
export interface AuthEnv {
  /** Undefined: user config is off; tokens live in memory for the host's life. */
  userConfigDir: string | undefined;
  declare: DeclareSecret;
}

export function storeFor(config: ServerConfig, env: AuthEnv): OAuthStore {
  return new OAuthStore(env.userConfigDir, config.url!, env.declare, `mcpServers.${config.name}.oauth`);
}

/** What `agent mcp list` shows of a remote server's authorization (here, not in index.ts: a stdio-only host never loads that). */
/** What authState needs of a server's provider (provider.ts), by shape: the provider itself uses this store. */
interface LoginNeed {
  needsLogin?: { scope?: string };
}

export function authState(config: ServerConfig, env: AuthEnv, provider?: LoginNeed): AuthState | undefined {
  if (!config.url || config.oauth === false) return undefined;
  if (provider?.needsLogin) return { state: "needs-login", scope: provider.needsLogin.scope };
  const state = describeStored(storeFor(config, env).read());
  if (config.oauth.grant !== "authorization_code" && state.state !== "none") return { ...state, state: "client-credentials" };
  return state;
}
