/**
 * Tool search: when a host has many tools (MCP servers with hundreds), every request carrying every
 * schema costs tens of kilobytes and, past 128 tools, OpenAI-compatible APIs refuse the request. Tools
 * marked `deferLoading` (MCP tools are) are then left out of requests: the system prompt names them,
 * and a read-only `tool_search` tool returns the full definitions of those the model asks for and makes
 * them part of every later request of the session. Built-in tools and `toolSearch.alwaysLoad` stay in
 * every request. Deferred tools are called through the gate like any other; calling one that was never
 * loaded gives a result saying how to load it. Written only against the public plugin API.
 */
import { definePlugin, z, type ModelRequest, type PluginContext, type ToolCallInfo } from "../../core/index.js";
import { alwaysLoaded, DEFAULTS, deferrable, listing, MAX_LOAD, overLimit, search, shouldDefer, type SearchSettings } from "./select.js";

declare module "../../core/index.js" {
  interface PluginConfigSections {
    toolSearch?: ToolSearchConfig;
  }
}

export const ToolSearchConfigSchema = z.strictObject({
  /** `auto` (default): defer when the deferrable tools are many; `always`; `off`. */
  mode: z.enum(["off", "auto", "always"]).optional(),
  /** auto: defer once the deferrable tools' definitions pass this many bytes (default 20000, about 5k tokens). */
  budgetBytes: z.number().int().nonnegative().optional(),
  /** auto: defer whenever a request would carry more than this many tools (default 100; APIs refuse more than 128). */
  maxTools: z.number().int().positive().max(128).optional(),
  /** Tool names or globs never deferred (`mcp__github__create_issue`, `mcp__docs__*`). */
  alwaysLoad: z.array(z.string()).optional(),
});
export type ToolSearchConfig = z.infer<typeof ToolSearchConfigSchema>;

export const TOOL_SEARCH = "tool_search";

const SearchInput = z.object({
  query: z.string().optional().describe('Keywords matched against tool names and descriptions, or a /regex/'),
  names: z.array(z.string()).optional().describe("Exact tool names to load"),
  limit: z.number().int().min(1).max(MAX_LOAD).optional().describe(`At most this many tools (default 5; ${MAX_LOAD} at most, exact names included)`),
});

export default definePlugin({
  name: "tool-search",
  // After the other plugins have shaped the request (its tools come from the registry as they are then).
  enforce: "post",
  configSections: { toolSearch: { schema: ToolSearchConfigSchema, trust: "inert" } },
  setup(ctx: PluginContext) {
    const c = ctx.config.toolSearch ?? {};
    const settings: SearchSettings = { ...DEFAULTS, ...Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)) };
    /** Per session: tools the model loaded, and whether any request of it left tools out. */
    const sessions = new Map<string, { loaded: Set<string>; deferring: boolean }>();
    const state = (id: string) => {
      let s = sessions.get(id);
      if (!s) sessions.set(id, (s = { loaded: new Set(), deferring: false }));
      return s;
    };
    const registered = (name: string) => ctx.host.tools.get(name);

    /**
     * Refuses a deferred tool the model never loaded. Tapped only once a request left tools out: until
     * then it would refuse nothing, and a tapped beforeToolCall makes every call build the hooks' view
     * of it (bench/mcp.mjs: a few µs a call).
     */
    let refusing = false;
    const refuseUnloaded = () => {
      if (refusing) return;
      refusing = true;
      ctx.hooks.beforeToolCall.tap("loaded", (call: ToolCallInfo) => {
        const s = sessions.get(call.sessionId);
        if (!s?.deferring || call.tool.deferLoading !== true || s.loaded.has(call.tool.name) || alwaysLoaded(call.tool.name, settings)) return undefined;
        return {
          deny: `Tool ${call.tool.name} is not loaded yet: call ${TOOL_SEARCH} with {"names": [${JSON.stringify(call.tool.name)}]} first, then call it again (its input schema comes with the result).`,
        };
      });
    };

    ctx.tools.add({
      name: TOOL_SEARCH,
      description:
        "Find and load tools that are not loaded yet (listed under \"More tools\" in the system prompt). " +
        "Give keywords or a /regex/ (matched against names and descriptions), or exact names. Returns their full definitions; they can be called from your next turn.",
      risk: "read",
      input: SearchInput,
      run: (input, call) => {
        if (!input.query && !input.names?.length) return { output: 'Give "query" (keywords or a /regex/) or "names".', isError: true };
        const candidates = ctx.host.tools.list().filter((t) => t.deferLoading === true);
        const found = search(candidates, input);
        if (found.length === 0) return `No tool matches ${JSON.stringify(input.query ?? input.names)}. ${candidates.length} tools can be searched.`;
        const s = state(call.sessionId);
        for (const t of found) {
          // Loaded again: now the most recent (the first to stay when a request must leave some out).
          s.loaded.delete(t.name);
          s.loaded.add(t.name);
        }
        const defs = found.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
        const asked = new Set(input.names ?? []).size;
        const cut = asked > MAX_LOAD ? ` (at most ${MAX_LOAD} a search: ask again for the rest)` : "";
        return {
          output: `Loaded ${found.length} tool(s)${cut}; call them from your next turn:\n${JSON.stringify(defs, null, 1)}`,
          structured: { loaded: found.map((t) => t.name) },
        };
      },
    });

    ctx.hooks.beforeModelRequest.tapPromise("defer", async (request: ModelRequest) => {
      const s = state(ctx.host.sessionId);
      const search = request.tools.find((t) => t.name === TOOL_SEARCH);
      const others = request.tools.filter((t) => t.name !== TOOL_SEARCH);
      const candidates = deferrable(others, registered, settings, s.loaded);
      if (!shouldDefer(others, candidates, settings)) {
        // Nothing deferred: the search tool would only be noise (unless something was loaded through it before).
        return s.deferring ? request : { ...request, tools: others };
      }
      s.deferring = true;
      refuseUnloaded();
      const left = new Set(candidates.map((t) => t.name));
      let kept = [...others.filter((t) => !left.has(t.name)), ...(search ? [search] : [])];
      // Past the API's limit the tools loaded longest ago are left out again (the model can load them once more).
      const unload = overLimit(kept, s.loaded);
      if (unload.size) {
        for (const name of unload) s.loaded.delete(name);
        kept = kept.filter((t) => !unload.has(t.name));
        candidates.push(...others.filter((t) => unload.has(t.name)));
      }
      const sourceOf = (name: string) => registered(name)?.source ?? "other";
      return { ...request, system: `${request.system}\n\n${listing(candidates, sourceOf, settings)}`, tools: kept };
    });

  },
});
