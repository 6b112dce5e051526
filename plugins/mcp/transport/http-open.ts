/**
 * Opening a remote server's session: Streamable HTTP first (unless `type` says otherwise), falling
 * back to legacy SSE on a 4xx other than 401/403, as the SDK documents. Both transports get the
 * server's OAuth provider (oauth/index.ts) unless `"oauth": false`: a 401 is answered by the SDK's auth
 * flow with the stored tokens (refreshed when about to expire); a server that needs a browser login
 * fails with the command to run.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config.js";
import { ConnectTimeoutError, describeError, httpStatus, isRequestTimeout } from "../errors.js";
import type { Attempt, OpenedSession } from "../session.js";
import type { GuardedTransport } from "./frame-guard.js";
import { refreshIfExpiring, type ServerAuth } from "../oauth/index.js";
import { isNeedsLogin } from "../oauth/provider.js";
import { ownOriginIssuerMismatch } from "../oauth/own-origin.js";
import { loadCore, loadSse, loadStreamableHttp } from "./sdk.js";

export interface RemoteOpener {
  config: ServerConfig;
  note(line: string): void;
  client(): Promise<Client>;
  guard(transport: Transport): Promise<GuardedTransport>;
  listAll(state: Attempt, client: Client, remaining: () => number): Promise<OpenedSession>;
  auth(): Promise<ServerAuth | undefined>;
  connectOptions(timeout: number): { timeout: number };
}

export async function openRemote(o: RemoteOpener, state: Attempt, remaining: () => number): Promise<OpenedSession> {
  try {
    return await openRemoteWith(o, state, remaining, false);
  } catch (err) {
    if (!ownOriginIssuerMismatch(err, o.config.url!)) throw err;
    o.note(`OAuth: ${(err as Error).message}; the server is its own authorization server (2025-03-26), so its metadata's issuer is taken as it is`);
    await state.session.client?.close().catch(() => {});
    return openRemoteWith(o, state, remaining, true);
  }
}

async function openRemoteWith(o: RemoteOpener, state: Attempt, remaining: () => number, skipIssuerMetadataValidation: boolean): Promise<OpenedSession> {
  const c = o.config;
  await loadCore();
  const url = new URL(c.url!);
  const requestInit = { headers: c.headers };
  const auth = await o.auth();
  if (auth) await refreshIfExpiring(auth, c.url!, o.note);
  const authOptions = auth ? { authProvider: auth.provider, fetch: auth.fetch, ...(skipIssuerMetadataValidation ? { skipIssuerMetadataValidation } : {}) } : {};
  let httpFailure: string | undefined;
  if (c.transport !== "sse") {
    const { StreamableHTTPClientTransport } = await loadStreamableHttp();
    const transport = new StreamableHTTPClientTransport(url, { requestInit, ...authOptions });
    const client = await o.client();
    const guard = await o.guard(transport);
    Object.assign(state.session, { transport, guard, client, kind: "http" });
    state.stage = `waiting for ${url.host} to answer server/discover or initialize`;
    try {
      await client.connect(guard, o.connectOptions(remaining()));
      return await o.listAll(state, client, remaining);
    } catch (err) {
      if (isNeedsLogin(err) || auth?.provider.needsLogin) throw auth?.provider.needsLogin ?? err;
      // The SDK's documented fallback: a 4xx to the initialize POST means "legacy SSE server".
      const status = httpStatus(err);
      const legacyHint = status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
      if (c.transport !== "auto" || !legacyHint) throw err;
      httpFailure = describeError(err, c.url);
      o.note(`Streamable HTTP failed (${httpFailure}); trying the legacy SSE transport`);
      await client.close().catch(() => {});
    }
  }
  const { SSEClientTransport } = await loadSse();
  const transport = new SSEClientTransport(url, { requestInit, ...authOptions });
  const client = await o.client();
  const guard = await o.guard(transport);
  state.session = Object.assign(state.session, { transport, guard, client, kind: "sse" as const });
  state.stage = `waiting for the SSE stream of ${url.host}`;
  try {
    await client.connect(guard, { timeout: remaining() });
  } catch (err) {
    if (auth?.provider.needsLogin) throw auth.provider.needsLogin;
    if (httpFailure && !(err instanceof ConnectTimeoutError) && !isRequestTimeout(err)) {
      throw new Error(`${httpFailure}; the legacy SSE transport failed too: ${describeError(err, c.url)}`);
    }
    throw err;
  }
  return o.listAll(state, client, remaining);
}
