/**
 * OAuth for the remote servers of one host: the token store of each server (per user), the
 * provider its transports use, refreshing a token about to expire before connecting, the auth
 * state shown by `agent mcp list`, and `agent mcp login` (a browser login through a loopback
 * listener, or the client_credentials grant). Everything OAuth itself is the SDK's
 * (`@modelcontextprotocol/client`); this module only wires it.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import type { FetchLike } from "@modelcontextprotocol/client";
import { AgentError } from "../../../core/index.js";
import type { ServerConfig } from "../config.js";
import { describeError } from "../errors.js";
import { LoopbackListener, openBrowser } from "./browser.js";
import { covers, McpOAuthProvider, NeedsLoginError, unionScopes, type LoginMode } from "./provider.js";
import { storeFor, type AuthEnv } from "./store.js";
import { ownOriginIssuerMismatch } from "./own-origin.js";

export { authState, storeFor, type AuthEnv } from "./store.js";

/** A token that expires within this long is refreshed before connecting. */
export const REFRESH_MARGIN_MS = 60_000;
/** How long `agent mcp login` waits for the browser. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;


/** What a remote server's transports get: the provider and a fetch that notes the MCP endpoint's answers. */
export interface ServerAuth {
  provider: McpOAuthProvider;
  fetch: FetchLike;
}

export async function serverAuth(config: ServerConfig, env: AuthEnv, login?: LoginMode): Promise<ServerAuth | undefined> {
  if (!config.url || config.oauth === false) return undefined;
  const o = config.oauth;
  let jwt;
  if (o.grant === "client_credentials" && o.privateKey) {
    const { createPrivateKeyJwtAuth } = await import("@modelcontextprotocol/client");
    jwt = createPrivateKeyJwtAuth({ issuer: o.clientId!, subject: o.clientId!, privateKey: o.privateKey, alg: o.signingAlgorithm ?? "ES256" });
  }
  const provider = new McpOAuthProvider(config, storeFor(config, env), login, jwt);
  const endpoint = config.url;
  const store = provider.store;
  const fetchWith: FetchLike = async (input, init) => {
    const target = String(input instanceof URL ? input.href : input);
    // Headless, nobody can finish a login: no client is registered for one (the login registers).
    if (!login && init?.method === "POST" && target === provider.discovery?.authorizationServerMetadata?.registration_endpoint) {
      throw (provider.needsLogin = new NeedsLoginError(config.name, undefined));
    }
    const res = await fetch(input, init);
    if (target !== endpoint) return res;
    provider.lastStatus = res.status;
    if (res.status === 403 && !login) {
      // Step-up: the server wants scopes the token lacks. A refresh cannot add them; a login can (unless the last one asked already).
      const header = res.headers.get("www-authenticate") ?? "";
      const wanted = /error="?insufficient_scope/.test(header) ? /scope="([^"]*)"/.exec(header)?.[1] : undefined;
      const stored = store.read();
      if (wanted && !covers(stored.loginScope ?? stored.tokens?.scope, wanted)) {
        const scope = unionScopes(stored.loginScope ?? stored.tokens?.scope, wanted);
        store.update((d) => (d.pendingScope = scope));
        throw (provider.needsLogin = new NeedsLoginError(config.name, scope));
      }
    }
    return res;
  };
  return { provider, fetch: fetchWith };
}

/** Before connecting: a token about to expire is refreshed (the SDK's auth() refreshes when it holds a refresh token). */
export async function refreshIfExpiring(auth: ServerAuth, url: string, note: (line: string) => void): Promise<void> {
  const stored = auth.provider.store.read();
  if (!stored.tokens?.refresh_token || stored.expiresAt === undefined || stored.expiresAt - Date.now() > REFRESH_MARGIN_MS) return;
  const { auth: sdkAuth } = await import("@modelcontextprotocol/client");
  try {
    const resourceMetadataUrl = stored.resourceMetadataUrl ? new URL(stored.resourceMetadataUrl) : undefined;
    await sdkAuth(auth.provider as OAuthClientProvider, { serverUrl: url, resourceMetadataUrl, fetchFn: auth.fetch });
    note("OAuth: the access token was about to expire and was refreshed");
  } catch (err) {
    // Refused or not possible: connecting says what is needed (a login).
    note(`OAuth: could not refresh the access token: ${describeError(err)}`);
  }
}


export interface LoginResult {
  scope?: string;
  expiresAt?: number;
  /** True when no login was needed (the server answered without authorization). */
  open: boolean;
}

/**
 * `agent mcp login <server>`: forget the current tokens, connect with a provider that may open the
 * browser, wait for the redirect on the loopback listener, exchange the code (the SDK: PKCE, resource),
 * and connect once more with the new tokens. The client_credentials grant needs no browser.
 */
export async function login(config: ServerConfig, env: AuthEnv, print: (line: string) => void, timeoutMs = LOGIN_TIMEOUT_MS): Promise<LoginResult> {
  if (!config.url) throw new AgentError("E_USAGE", `MCP server ${config.name} is a local (stdio) server: it has no login`);
  if (config.oauth === false) throw new AgentError("E_USAGE", `MCP server ${config.name} has "oauth": false`);
  const store = storeFor(config, env);
  store.update((d) => ((d.tokens = undefined), (d.expiresAt = undefined)));
  const machine = config.oauth.grant === "client_credentials";
  const listener = machine ? undefined : await LoopbackListener.open(config.oauth.callbackPort);
  const mode: LoginMode | undefined = listener && {
    listener,
    open: (url) => {
      const opened = openBrowser(url.href);
      print(opened ? `Opening the browser to log in to ${config.name}. If it does not open, visit:\n  ${url.href}` : `Open this URL in a browser to log in to ${config.name}:\n  ${url.href}`);
    },
  };
  try {
    const auth = (await serverAuth(config, env, mode))!;
    const { Client } = await import("@modelcontextprotocol/client");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    const { UnauthorizedError } = await import("@modelcontextprotocol/client");
    const { CLIENT_INFO, negotiation } = await import("../client/setup.js");
    let ownOrigin = false;
    const connectOnce = async () => {
      const skip = ownOrigin ? { skipIssuerMetadataValidation: true } : {};
      const transport = new StreamableHTTPClientTransport(new URL(config.url!), { authProvider: auth.provider, fetch: auth.fetch, requestInit: { headers: config.headers }, ...skip });
      // The revision the server's connections speak: a 2026-07-28-only server refuses an initialize.
      const client = new Client(CLIENT_INFO, { capabilities: {}, versionNegotiation: negotiation(config) });
      try {
        await client.connect(transport);
        // Listing tools is what needs authorization on many servers (initialize may not).
        if (client.getServerCapabilities()?.tools) await client.listTools();
        return true;
      } catch (err) {
        // A 2025-03-26 server that is its own authorization server: see transport/http-open.ts.
        if (!ownOrigin && ownOriginIssuerMismatch(err, config.url!)) {
          ownOrigin = true;
          return false;
        }
        if (!(err instanceof UnauthorizedError) || !mode?.started) throw err;
        const code = await listener!.waitForCode(timeoutMs);
        await transport.finishAuth(code, listener!.issuer);
        return false;
      } finally {
        await client.close().catch(() => {});
      }
    };
    let done = false;
    // A step-up (403 insufficient_scope) after the first login asks once more, at most twice.
    for (let i = 0; i < 3 && !done; i++) {
      if (mode) mode.started = false;
      // Each round discovers afresh: a server that moved to another authorization server is followed there (SEP-2352).
      if (i > 0) auth.provider.invalidateCredentials("discovery");
      done = await connectOnce();
    }
    if (!done) throw new Error("the server still asks for authorization after the login");
    const stored = auth.provider.store.read();
    return { scope: stored.tokens?.scope ?? stored.loginScope, expiresAt: stored.expiresAt, open: !stored.tokens };
  } finally {
    listener?.close();
  }
}

/** `agent mcp logout <server>`: the stored tokens and registration are forgotten. */
export function logout(config: ServerConfig, env: AuthEnv): boolean {
  if (!config.url) throw new AgentError("E_USAGE", `MCP server ${config.name} is a local (stdio) server: it has no login`);
  return storeFor(config, env).clear();
}
