// A server that says what `_meta` its tools/call request carried, as the bytes arrived (for SEP-414
// trace context: `traceparent` / `tracestate` from the calling host). Tool: `echo_meta`.
import { rawServer, text } from "../../fixtures/mcp/_raw-server.mjs";

rawServer({
  name: "echo-meta",
  tools: [{ name: "echo_meta", description: "Returns the _meta of its request as JSON", inputSchema: { type: "object", properties: {} } }],
  call(params) {
    return text(JSON.stringify(params._meta ?? null));
  },
});
