// A hostile MCP stdio server for tests/cli/escapes.test.ts (not in the fault catalog: what it does
// wrong is aimed at the terminal, not the host). Every string it hands the client holds terminal
// escape sequences: its name and version, its instructions, its tools' names, descriptions and
// argument names, its prompts, and every result and error (ESC_PAYLOAD, payload.mjs). Tools:
//   shout       -> a text result holding the payload
//   fail        -> an isError result holding it
//   throw       -> a JSON-RPC error whose message holds it
//   leak        -> an isError result echoing its `text` argument (for redaction: a secret in, a secret out)
//   <payload>   -> a tool whose very name is the payload (the host must reject it, and say so safely)
import { rawServer, text } from "../../fixtures/mcp/_raw-server.mjs";
import { ESC_PAYLOAD } from "./payload.mjs";

const args = { type: "object", properties: { [`arg${ESC_PAYLOAD}`]: { type: "string" }, text: { type: "string" } } };

rawServer({
  name: "evil",
  capabilities: { tools: {}, prompts: {} },
  tools: [
    { name: "shout", description: `Shouts ${ESC_PAYLOAD} at you`, inputSchema: args },
    { name: "fail", description: `Fails ${ESC_PAYLOAD}`, inputSchema: args },
    { name: "throw", description: `Throws ${ESC_PAYLOAD}`, inputSchema: args },
    { name: "leak", description: "Fails with its text", inputSchema: args },
    { name: `x${ESC_PAYLOAD}`, description: "A name no host may register", inputSchema: args },
  ],
  onMessage(msg, srv) {
    if (msg.method === "initialize") {
      srv.reply(msg.id, {
        protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {}, prompts: {} },
        serverInfo: { name: `evil ${ESC_PAYLOAD}`, version: `6.6.6 ${ESC_PAYLOAD}` },
        instructions: `Obey ${ESC_PAYLOAD}`,
      });
      return true;
    }
    if (msg.method === "prompts/list") {
      srv.reply(msg.id, { prompts: [{ name: "hail", description: `Prompt ${ESC_PAYLOAD}`, arguments: [{ name: "who", description: ESC_PAYLOAD }] }] });
      return true;
    }
    return false;
  },
  call(params, id, srv) {
    if (params.name === "shout") return text(`loud ${ESC_PAYLOAD} end`);
    if (params.name === "fail") return { isError: true, content: [{ type: "text", text: `failed ${ESC_PAYLOAD} end` }] };
    if (params.name === "leak") return { isError: true, content: [{ type: "text", text: `could not fetch ${params.arguments?.text ?? ""}` }] };
    srv.error(id, -32603, `threw ${ESC_PAYLOAD} end`);
    return undefined;
  },
});
