#!/usr/bin/env node
// The client under test for the MCP conformance suite: the built `agent` CLI (dist/cli.js), driven
// as a user would drive it. The suite runs
//   node tests/conformance/client.mjs <server-url>
// with MCP_CONFORMANCE_SCENARIO (and, for some scenarios, MCP_CONFORMANCE_CONTEXT: a pre-registered
// client, client credentials) set. This script writes the `.mcp.json` a user would write for that
// server (the context becomes the entry's `oauth` key), then runs
//   agent mcp list --json              (connects; a server that needs a login says so)
//   agent mcp login server             (only when it does; BROWSER=browser.mjs completes the login)
//   agent call mcp__server__<tool> …   (every tool, arguments from its input schema; a call that
//                                       needs a login with more scopes gets one login and a retry)
//   agent call skill {"name": …}       (sep-2640-client-verify-* only: each of the server's skills, used)
// with its own user config folder (AGENT_CONFIG_HOME), so tokens are stored as for a user, in a folder
// trusted as the user's own (AGENT_TRUST=1: the same trust as an `agent trust`, without a process for it).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "../../dist/cli.js");
const url = process.argv[2];
if (!url) {
  process.stderr.write("usage: client.mjs <server-url>\n");
  process.exit(2);
}
/** A Client ID Metadata Document URL, used as client_id by servers that support them (the suite's fixed one). */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";

function oauthFromContext() {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  const ctx = raw ? JSON.parse(raw) : {};
  const oauth = { clientMetadataUrl: CIMD_URL };
  if (ctx.client_id) oauth.clientId = ctx.client_id;
  if (ctx.client_secret) oauth.clientSecret = ctx.client_secret;
  if (ctx.private_key_pem) Object.assign(oauth, { privateKey: ctx.private_key_pem, signingAlgorithm: ctx.signing_algorithm ?? "ES256" });
  if (/client-credentials/.test(ctx.name ?? "")) oauth.grant = "client_credentials";
  if (ctx.idp_token_endpoint) Object.assign(oauth, { grant: "cross_app_access", idpTokenEndpoint: ctx.idp_token_endpoint, idpClientId: ctx.idp_client_id, idToken: ctx.idp_id_token });
  return oauth;
}

function sample(schema) {
  if (schema && "default" in schema) return schema.default;
  if (Array.isArray(schema?.enum) && schema.enum.length) return schema.enum[0];
  switch (Array.isArray(schema?.type) ? schema.type[0] : schema?.type) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return argsFor(schema);
    default:
      return "test";
  }
}

function argsFor(schema) {
  const args = {};
  for (const name of schema?.required ?? []) args[name] = sample(schema.properties?.[name]);
  // A value the tool's description asks for, as a user would type it: a string that needs Base64 in its header.
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (!(name in args) && prop?.type === "string" && /requires Base64/i.test(prop.description ?? "")) args[name] = " grüße ";
  }
  return args;
}

const project = mkdtempSync(path.join(os.tmpdir(), "agent-conformance-"));
const userDir = path.join(project, ".user-config");
const env = { ...process.env, AGENT_CONFIG_HOME: userDir, AGENT_TRUST: "1", BROWSER: `${process.execPath} ${path.join(here, "browser.mjs")}`, NO_COLOR: "1" };
delete env.AGENT_DEBUG;

function agent(...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, "--cwd", project, ...args], { env, timeout: 25_000 }, (err, stdout, stderr) => {
      process.stdout.write(`$ agent ${args.join(" ")}\n${stdout}${stderr}`);
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const needsLogin = (text) => /agent mcp login server/.test(text);
let code = 0;
try {
  writeFileSync(path.join(project, ".mcp.json"), JSON.stringify({ mcpServers: { server: { url, connectTimeout: 10_000, oauth: oauthFromContext() } } }, null, 2));
  let list = await agent("mcp", "list", "--json");
  let status = JSON.parse(list.stdout || "[]")[0];
  if (status?.auth?.state === "needs-login") {
    if ((await agent("mcp", "login", "server")).code !== 0) code = 1;
    list = await agent("mcp", "list", "--json");
    status = JSON.parse(list.stdout || "[]")[0];
  }
  if (status?.status !== "connected") code = 1;
  const tools = JSON.parse((await agent("tools", "--json")).stdout || "[]").filter((t) => t.source === "mcp:server" && t.name !== "mcp__server__resources");
  for (const tool of tools) {
    const input = JSON.stringify(argsFor(tool.inputSchema));
    let r = await agent("--permission-mode", "bypass", "call", tool.name, input, "--json");
    // A step-up: the server wants more scopes for this call; one login, one retry.
    for (let i = 0; i < 2 && r.code !== 0 && needsLogin(r.stdout + r.stderr); i++) {
      await agent("mcp", "login", "server");
      r = await agent("--permission-mode", "bypass", "call", tool.name, input, "--json");
    }
    if (r.code !== 0) code = 1;
  }
  // The skills scenarios that judge what a client does with a skill it uses (sep-2640-client-verify-*):
  // the user lists the server's skills and each is used as the model uses one (the `skill` tool). The
  // others only connect and call tools, so no-prefetch sees exactly what connecting reads.
  if (/^sep-2640-client-verify-/.test(process.env.MCP_CONFORMANCE_SCENARIO ?? "")) {
    const skills = JSON.parse((await agent("skills", "--json")).stdout || "[]").filter((s) => s.source === "mcp:server");
    if (!skills.length) code = 1;
    for (const skill of skills) if ((await agent("--permission-mode", "bypass", "call", "skill", JSON.stringify({ name: skill.name }), "--json")).code !== 0) code = 1;
  }
} finally {
  rmSync(project, { recursive: true, force: true });
}
process.exit(code);
