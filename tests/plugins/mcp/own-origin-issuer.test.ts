/** The one case the SDK's RFC 8414 issuer check is turned off: a 2025-03-26 server that is its own authorization server. */
import { expect, it } from "vitest";
import { ownOriginIssuerMismatch } from "../../../plugins/mcp/oauth/own-origin.js";

it("is the server's own origin expected, and only that", () => {
  const url = "http://localhost:39799/mcp";
  const own = new Error('Issuer mismatch in authorization server metadata (RFC 8414 §3.3): expected "http://localhost:39799/", received "http://localhost:39799/oauth"');
  expect(ownOriginIssuerMismatch(own, url)).toBe(true);
  // Another authorization server (named by protected-resource metadata) keeps the check.
  const other = new Error('Issuer mismatch in authorization server metadata (RFC 8414 §3.3): expected "https://auth.example.com/", received "https://evil.example.com/"');
  expect(ownOriginIssuerMismatch(other, url)).toBe(false);
  expect(ownOriginIssuerMismatch(new Error('Issuer mismatch in authorization response (RFC 9207): expected "http://localhost:39799/"'), url)).toBe(false);
});
