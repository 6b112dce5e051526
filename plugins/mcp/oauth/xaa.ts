/**
 * Cross-app access (SEP-990, the Identity Assertion Authorization Grant): the one request the SDK
 * (1.32) has no helper for. The user's ID token from their enterprise IdP is exchanged at the IdP
 * (RFC 8693 token exchange) for an ID-JAG addressed to the MCP server's authorization server; the
 * SDK then sends it there as a jwt-bearer grant (RFC 7523) with our client authentication.
 */
import type { OAuthSettings } from "../config.js";

export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export async function requestIdJag(o: OAuthSettings, audience: string, resource: string | undefined): Promise<string> {
  const body = new URLSearchParams({
    grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
    requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
    audience,
    subject_token: o.idToken!,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
  });
  if (resource) body.set("resource", resource);
  if (o.idpClientId) body.set("client_id", o.idpClientId);
  const res = await fetch(o.idpTokenEndpoint!, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body });
  const json = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string; error_description?: string };
  if (!res.ok || !json.access_token) throw new Error(`the IdP refused the token exchange: ${json.error ?? `HTTP ${res.status}`}${json.error_description ? ` (${json.error_description})` : ""}`);
  return json.access_token;
}
