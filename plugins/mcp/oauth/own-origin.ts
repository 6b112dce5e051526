/**
 * A 2025-03-26 server without protected-resource metadata is its own authorization server (its origin); one
 * whose metadata names another issuer fails the SDK's RFC 8414 issuer check. No other server is involved
 * there to be mixed up with, so that server gets the check off (and only it).
 */
export function ownOriginIssuerMismatch(err: unknown, url: string): boolean {
  const message = String((err as Error)?.message ?? "");
  return /^Issuer mismatch in authorization server metadata/.test(message) && message.includes(`expected "${new URL(url).origin}/"`);
}
