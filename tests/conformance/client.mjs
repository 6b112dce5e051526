#!/usr/bin/env node
// The client under test for the MCP conformance suite: agent-host's MCP plugin, driven through the
// public host API of the build (dist/index.js), not the raw SDK. The suite runs
//   node tests/conformance/client.mjs <server-url>
// with MCP_CONFORMANCE_SCENARIO set. Scenario-agnostic: connect, then call every tool of the
// server through the gate with arguments made from its input schema (defaults, else simple values).
// Elicitation requests are answered by the plugin itself (accepted with the form's defaults).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { builtinPlugins } from "../../dist/builtins.js";
import { createHost } from "../../dist/index.js";

const url = process.argv[2];
if (!url) {
  process.stderr.write("usage: client.mjs <server-url>\n");
  process.exit(2);
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
  return args;
}

const cwd = mkdtempSync(path.join(os.tmpdir(), "agent-conformance-"));
let code = 0;
const host = await createHost({
  cwd,
  userConfigDir: false,
  loadConfigFiles: false,
  builtins: builtinPlugins,
  permissionMode: "bypass",
  audit: false,
  config: { mcpServers: { server: { url, connectTimeout: 10_000 } } },
});
try {
  for (const p of host.problems) process.stderr.write(`problem: ${p.message}\n`);
  if (host.problems.some((p) => p.kind === "server")) code = 1;
  const tools = host.tools.list().filter((t) => t.source === "mcp:server" && !t.meta?.mcpResources);
  for (const tool of tools) {
    const input = argsFor(tool.inputSchema);
    const result = await host.tools.call(tool.name, input);
    process.stdout.write(`${tool.name} ${JSON.stringify(input)} -> ${result.outcome}: ${result.output}\n`);
    if (!result.ok) code = 1;
  }
} finally {
  await host.close();
  rmSync(cwd, { recursive: true, force: true });
}
process.exit(code);
