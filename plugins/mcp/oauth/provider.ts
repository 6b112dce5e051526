/**
 * The SDK's `OAuthClientProvider` for one remote server, over the user's token store
 * (store.ts). The SDK does the OAuth (discovery of protected-resource and authorization-server
 * metadata, registration by metadata document or dynamically, PKCE, the `resource` parameter, token
 * endpoint authentication, refresh, step-up on 403): this class only says what it should use and
 * keeps what it gets. Two modes:
 * - headless (every connection): a server that needs a browser login fails with `NeedsLoginError`,
 *   naming `agent mcp login <server>`; nothing waits for a human;
 * - login (`agent mcp login`, oauth-login.ts): the browser is opened on the authorization URL and
 *   the loopback listener receives the code.
 * With `grant: "client_credentials"` no browser is ever needed (tokens come from the token endpoint).
 */
import { randomBytes } from "node:crypto";
import type { AddClientAuthentication, OAuthClientInformationContext, OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/client";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/client";
import type { OAuthSettings, ServerConfig } from "../config.js";
import type { LoopbackListener } from "./browser.js";
import type { OAuthStore } from "./store.js";
import { JWT_BEARER, requestIdJag } from "./xaa.js";

/** A server needs a browser login and nobody is there to do it: the message names the command. */
export class NeedsLoginError extends Error {
  readonly needsLogin = true;
  constructor(
    readonly server: string,
    readonly scope: string | undefined,
  ) {
    super(`needs authorization${scope ? ` (scope ${scope})` : ""}: run \`agent mcp login ${server}\``);
    this.name = "NeedsLoginError";
  }
}

export function isNeedsLogin(err: unknown): err is NeedsLoginError {
  for (let e = err as { needsLogin?: boolean; cause?: unknown } | undefined, n = 0; e && n < 5; e = e.cause as typeof e, n++) if (e.needsLogin) return true;
  return false;
}

const scopeSet = (s: string | undefined | null) => new Set((s ?? "").split(/\s+/).filter(Boolean));
export function unionScopes(...scopes: (string | undefined | null)[]): string | undefined {
  const all = new Set(scopes.flatMap((s) => [...scopeSet(s)]));
  return all.size ? [...all].join(" ") : undefined;
}
export const covers = (have: string | undefined, want: string | undefined) => [...scopeSet(want)].every((s) => scopeSet(have).has(s));

export interface LoginMode {
  listener: LoopbackListener;
  /** Open the browser on the authorization URL (and print it). */
  open(url: URL): void;
  /** Set once the browser was sent to the authorization server. */
  started?: boolean;
}

export class McpOAuthProvider implements OAuthClientProvider {
  /** The status of the last answer of the MCP endpoint (403 tells a step-up from a login). */
  lastStatus: number | undefined;
  /** Set when a login was needed and refused (headless). */
  needsLogin: NeedsLoginError | undefined;
  private verifier: string | undefined;
  private stateValue: string | undefined;
  private readonly settings: OAuthSettings;
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(
    private readonly server: ServerConfig,
    readonly store: OAuthStore,
    private readonly login?: LoginMode,
    jwtAuth?: AddClientAuthentication,
  ) {
    this.settings = server.oauth || { grant: "authorization_code" };
    if (jwtAuth) this.addClientAuthentication = jwtAuth;
  }

  /** No browser: the token endpoint alone (client_credentials, cross-app access). */
  private get machine(): boolean {
    return this.settings.grant !== "authorization_code";
  }

  get redirectUrl(): string | undefined {
    if (this.machine) return undefined;
    return this.login?.listener.redirectUrl ?? `http://127.0.0.1:${this.settings.callbackPort ?? 0}/callback`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const metadata: OAuthClientMetadata & { application_type: string } = {
      client_name: "agent-host",
      // A command-line client with a loopback redirect is a native application (RFC 7591, SEP-837).
      application_type: "native",
      redirect_uris: this.machine ? [] : [this.redirectUrl!],
      grant_types: this.machine ? [this.settings.grant === "cross_app_access" ? JWT_BEARER : "client_credentials"] : ["authorization_code", "refresh_token"],
      response_types: this.machine ? [] : ["code"],
      token_endpoint_auth_method: this.settings.privateKey ? "private_key_jwt" : this.settings.clientSecret ? "client_secret_basic" : "none",
      ...(this.settings.scopes ? { scope: this.settings.scopes } : {}),
    };
    return metadata;
  }

  state(): string {
    this.stateValue = randomBytes(16).toString("base64url");
    if (this.login) this.login.listener.expectedState = this.stateValue;
    return this.stateValue;
  }

  clientInformation(ctx?: OAuthClientInformationContext): OAuthClientInformationMixed | undefined {
    const stored = this.store.read();
    // The server moved to another authorization server: a registration made with the old one is not used there.
    if (stored.registered && stored.clientIssuer && ctx?.issuer && ctx.issuer !== stored.clientIssuer) return undefined;
    const id = this.settings.clientId;
    if (id) {
      // A pre-registered client: the config's, stamped with its authorization server once one accepted it.
      if (stored.client?.client_id === id && !stored.registered) return { ...stored.client, client_secret: this.settings.clientSecret };
      return { client_id: id, ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}) };
    }
    const client = stored.client;
    // A registration made for another redirect URI (another callback port) is made again.
    const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (client && this.login && stored.registered && uris?.length && !uris.includes(this.redirectUrl!) && client.client_id !== this.settings.clientMetadataUrl) return undefined;
    return client;
  }

  saveClientInformation(info: OAuthClientInformationMixed, ctx?: OAuthClientInformationContext): void {
    // Headless, a registration is not kept: the login registers with its real redirect URI.
    if (!this.login && !this.machine && !this.settings.clientId && !this.store.read().client) return;
    const configured = this.settings.clientId !== undefined && info.client_id === this.settings.clientId;
    this.store.update((d) => {
      // The config keeps the pre-registered secret; the store keeps only the binding to the authorization server.
      d.client = configured ? { ...info, client_secret: undefined } : info;
      d.registered = !configured;
      d.clientIssuer = ctx?.issuer;
    });
  }

  tokens(): OAuthTokens | undefined {
    return this.store.read().tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.store.update((d) => {
      d.tokens = tokens;
      d.savedAt = new Date().toISOString();
      d.expiresAt = typeof tokens.expires_in === "number" ? Date.now() + tokens.expires_in * 1000 : undefined;
      if (covers(tokens.scope ?? d.loginScope, d.pendingScope)) d.pendingScope = undefined;
    });
    this.needsLogin = undefined;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const stored = this.store.read();
    const asked = authorizationUrl.searchParams.get("scope") ?? undefined;
    // The config's scopes win; otherwise what the server asks now, plus what it asked for before (step-up).
    const scope = this.settings.scopes ?? unionScopes(asked, stored.pendingScope);
    if (scope) authorizationUrl.searchParams.set("scope", scope);
    else authorizationUrl.searchParams.delete("scope");
    if (!this.login) {
      if (this.lastStatus === 403 && stored.tokens && covers(stored.loginScope, scope)) {
        // Step-up limit: the last login already asked for this; another one would not change the answer.
        throw new Error(`the server refuses the token (403 insufficient_scope) although the last login asked for scope "${scope}"; not asking for another login (run \`agent mcp login ${this.server.name}\` to try anyway)`);
      }
      if (this.lastStatus === 403 && scope) this.store.update((d) => (d.pendingScope = scope));
      this.needsLogin = new NeedsLoginError(this.server.name, this.lastStatus === 403 ? scope : undefined);
      throw this.needsLogin;
    }
    this.store.update((d) => (d.loginScope = scope));
    this.login.started = true;
    this.login.listener.reset();
    this.login.open(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("no PKCE code verifier: the login was not started by this process");
    return this.verifier;
  }

  /**
   * What discovery found, for this process only: kept across the steps of one login (and the headless
   * check of the registration endpoint), never on disk, so a server that moves to another
   * authorization server is discovered afresh (and the client registered there, SEP-2352).
   */
  discovery: OAuthDiscoveryState | undefined;

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    if (this.discovery || !this.settings.authServerMetadataUrl) return this.discovery;
    // Discovery skipped: the authorization server's metadata comes from the configured URL.
    const res = await fetch(this.settings.authServerMetadataUrl, { headers: { accept: "application/json" } });
    if (!res.ok) throw new Error(`oauth.authServerMetadataUrl answered HTTP ${res.status}`);
    const metadata = (await res.json()) as { issuer: string };
    return { authorizationServerUrl: metadata.issuer, authorizationServerMetadata: metadata as never };
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
    // Only where the metadata was found is kept: it lets a refresh before connecting find the server's metadata again.
    if (state.resourceMetadataUrl && state.resourceMetadataUrl !== this.store.read().resourceMetadataUrl) this.store.update((d) => (d.resourceMetadataUrl = state.resourceMetadataUrl));
  }

  invalidateCredentials(what: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    this.store.update((d) => {
      if (what === "all" || what === "client") (d.client = undefined), (d.registered = undefined);
      if (what === "all" || what === "tokens") (d.tokens = undefined), (d.expiresAt = undefined);
    });
    if (what === "all" || what === "discovery") this.discovery = undefined;
    if (what === "all" || what === "verifier") this.verifier = undefined;
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (!this.machine) return undefined;
    if (this.settings.grant === "cross_app_access") {
      const d = this.discovery;
      const assertion = await requestIdJag(this.settings, d?.authorizationServerMetadata?.issuer ?? String(d?.authorizationServerUrl ?? ""), d?.resourceMetadata?.resource);
      return new URLSearchParams({ grant_type: JWT_BEARER, assertion });
    }
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    const s = this.settings.scopes ?? scope;
    if (s) params.set("scope", s);
    return params;
  }
}
