/**
 * One MCP server (SDK v2 `Server`, the 2025 protocol a connected client negotiates) over a host: tools,
 * prompts and skill resources, each call through the host's gate with the client named as its caller.
 */
import { Server, type ServerContext } from "@modelcontextprotocol/server";
import { type PluginHost } from "../../core/index.js";
import { hostVersion } from "../../kit/index.js";
import type { PendingCalls } from "./asker.js";
import { promptList, getPrompt } from "./prompts.js";
import { readSkill, skillResources } from "./skills.js";
import { callResult, servedTools, toolView } from "./tool-view.js";

let calls = 0;

export function registryServer(host: PluginHost, pending: PendingCalls): Server {
  const server = new Server(
    { name: "agent-host", version: hostVersion() },
    { capabilities: { tools: {}, prompts: {}, resources: {}, logging: {}, completions: {} }, instructions: `The tools, prompts and skills of the agent-host project at ${host.cwd}. Every call passes its permission rules and is audited.` },
  );
  // The client as it named itself in initialize (the audit's `caller`).
  const caller = () => server.getClientVersion()?.name ?? "unknown MCP client";

  server.setRequestHandler("tools/list", async () => {
    await host.tools.load();
    return { tools: servedTools(host).map(toolView) };
  });

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args } = request.params;
    if (!servedTools(host).some((t) => t.name === name) && host.tools.get(name)) {
      return callResult({ ok: false, outcome: "denied", output: `Tool ${name} is not served: it comes from a server that is agent-host itself.`, durationMs: 0, callId: "" });
    }
    const callId = `mcp_${process.pid.toString(36)}_${(++calls).toString(36)}`;
    pending.add(callId, { server, ctx, progressToken: ctx.mcpReq._meta?.progressToken });
    try {
      return callResult(await host.tools.call(name, args ?? {}, { callId, caller: caller(), signal: ctx.mcpReq.signal }));
    } finally {
      pending.delete(callId);
    }
  });

  server.setRequestHandler("prompts/list", () => ({ prompts: promptList(host) }));
  server.setRequestHandler("prompts/get", (request, ctx: ServerContext) => getPrompt(host, request.params.name, request.params.arguments, ctx.mcpReq.signal));
  server.setRequestHandler("resources/list", () => ({ resources: skillResources(host) }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", (request) => readSkill(host, request.params.uri));
  // Prompt arguments are free text (`/name args`): there is nothing to complete.
  server.setRequestHandler("completion/complete", () => ({ completion: { values: [], hasMore: false } }));
  return server;
}
