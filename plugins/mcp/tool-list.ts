/**
 * `tools/list`, one tool at a time. The SDK's `listTools` validates the whole answer at once, so one
 * tool with an odd input schema cost the server every tool (with zod's JSON message cut to its first
 * line, `[`). Here the list is requested with a lenient schema and each tool is checked on its own:
 * a bad one is skipped with its name and the reason, the others are kept.
 *
 * Checks, beyond the SDK's Tool schema: `inputSchema` must be a JSON Schema object of type "object"
 * (one without `type` is taken as an object schema when it has `properties`, `required` or
 * `additionalProperties`, or nothing at all: `{}`); an `outputSchema` likewise; every local `$ref`
 * must point at something the schema defines (remote ones are never fetched, so they must name an
 * `$id` inside it).
 *
 * `prompts/list` is read here too (every page), checked as the SDK checks it.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Prompt, Tool } from "@modelcontextprotocol/client";
import { ToolSchema } from "@modelcontextprotocol/core";
import { z } from "../../core/index.js";
import { xMcpHeaderFault } from "./x-mcp-header.js";

export interface SkippedTool {
  /** The tool's name, or `#<index>` for an entry without one. */
  name: string;
  reason: string;
}

/** Every item of a paginated list (tools, prompts), stopping at a repeated cursor or 1000 pages. */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 1000; n++) {
    const r = await page(cursor);
    all.push(...r.items);
    if (!r.nextCursor || r.nextCursor === cursor) break;
    cursor = r.nextCursor;
  }
  return all;
}

/** Every prompt the server lists (`prompts/list`, all pages); prompts are read as the SDK checks them. */
export function listPrompts(client: Client, timeout: number): Promise<Prompt[]> {
  return allPages((cursor) => client.listPrompts(cursor ? { cursor } : undefined, { timeout }).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })));
}

const LenientList = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v);

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "string" ? `the string ${JSON.stringify(v.slice(0, 40))}` : `${typeof v === "object" ? "an" : "the"} ${typeof v}${typeof v === "object" ? "" : ` ${String(v)}`}`;
}

/** The keywords a type-less schema may have and still be taken for an object schema. */
const OBJECT_ONLY = new Set(["properties", "required", "additionalProperties", "title", "description", "$schema", "$id", "$defs", "definitions", "$comment"]);

/** Every `$ref` and `$id` / `$anchor` in a schema, found without recursion. */
function refsAndIds(schema: unknown): { refs: string[]; ids: Set<string>; anchors: Set<string>; resources: unknown[] } {
  const refs: string[] = [];
  const ids = new Set<string>();
  const anchors = new Set<string>();
  const resources: unknown[] = [];
  const stack: unknown[] = [schema];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (isObject(v)) {
      if (typeof v.$ref === "string") refs.push(v.$ref);
      if (typeof v.$id === "string") {
        ids.add(v.$id.replace(/#$/, ""));
        if (v.$id.startsWith("#")) anchors.add(v.$id.slice(1));
        resources.push(v);
      }
      if (typeof v.$anchor === "string") anchors.add(v.$anchor);
      for (const [k, x] of Object.entries(v)) if (k !== "enum" && k !== "const" && k !== "examples" && k !== "default") stack.push(x);
    }
  }
  return { refs, ids, anchors, resources };
}

/** Follow a JSON pointer (`/$defs/item`) from `root`; undefined when it leads nowhere. */
function pointer(root: unknown, path: string): unknown {
  if (path === "") return root;
  let v = root;
  for (const raw of path.slice(1).split("/")) {
    let key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    try {
      key = decodeURIComponent(key);
    } catch {
      /* kept as written */
    }
    if (Array.isArray(v) && /^\d+$/.test(key)) v = v[Number(key)];
    else if (isObject(v) && Object.hasOwn(v, key)) v = v[key];
    else return undefined;
  }
  return v;
}

/** The first `$ref` of `schema` that points at nothing it defines. */
export function danglingRef(schema: unknown): string | undefined {
  const { refs, ids, anchors, resources } = refsAndIds(schema);
  for (const ref of refs) {
    const hash = ref.indexOf("#");
    const base = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? "" : ref.slice(hash + 1);
    if (base !== "") {
      if (!ids.has(base) && ![...ids].some((id) => id.endsWith(`/${base}`))) return ref;
      continue; // a reference into an embedded resource: ajv resolves it; we only check that it exists
    }
    if (fragment === "" ) continue;
    if (!fragment.startsWith("/")) {
      if (!anchors.has(fragment)) return ref;
      continue;
    }
    if (pointer(schema, fragment) === undefined && !resources.some((r) => pointer(r, fragment) !== undefined)) return ref;
  }
  return undefined;
}

/** Check one schema of a tool (`inputSchema` or `outputSchema`); returns it normalized, or why it is unusable. */
function checkSchema(schema: unknown, key: "inputSchema" | "outputSchema"): { schema: Loose } | { reason: string } {
  if (!isObject(schema)) return { reason: `its ${key} is not a JSON Schema object (got ${describe(schema)})` };
  let out = schema;
  if (!("type" in schema)) {
    const keys = Object.keys(schema);
    if (keys.length && !keys.some((k) => k === "properties" || k === "required" || k === "additionalProperties")) {
      return { reason: `its ${key} has no "type" (MCP requires type "object")` };
    }
    const other = keys.find((k) => !OBJECT_ONLY.has(k));
    if (other) return { reason: `its ${key} has no "type" and has "${other}", so it is not clearly an object schema` };
    out = { ...schema, type: "object" };
  } else if (schema.type !== "object") {
    return { reason: `its ${key} has type ${JSON.stringify(schema.type)}; it must be "object"` };
  }
  const ref = danglingRef(out);
  if (ref) return { reason: `its ${key} has a $ref to ${JSON.stringify(ref)}, which the schema does not define` };
  return { schema: out };
}

/** One entry of `tools/list`: the tool (normalized), or why it is skipped. */
export function checkTool(raw: unknown, index: number): { tool: Tool } | { skipped: SkippedTool } {
  if (!isObject(raw)) return { skipped: { name: `#${index}`, reason: `the entry is ${describe(raw)}, not a tool` } };
  if (typeof raw.name !== "string" || raw.name === "") return { skipped: { name: `#${index}`, reason: `it has no "name" (got ${describe(raw.name)})` } };
  const name = raw.name;
  if (!("inputSchema" in raw)) return { skipped: { name, reason: 'it has no inputSchema (MCP requires one, of type "object")' } };
  // A tool that only runs as a task (SEP-1686) fails every plain call: not offered at all.
  if (isObject(raw.execution) && raw.execution.taskSupport === "required") return { skipped: { name, reason: 'it runs only as a task (execution.taskSupport "required"), which agent does not call' } };
  const input = checkSchema(raw.inputSchema, "inputSchema");
  if ("reason" in input) return { skipped: { name, reason: input.reason } };
  let candidate: Loose = { ...raw, inputSchema: input.schema };
  if (raw.outputSchema !== undefined) {
    const output = checkSchema(raw.outputSchema, "outputSchema");
    if ("reason" in output) return { skipped: { name, reason: output.reason } };
    candidate = { ...candidate, outputSchema: output.schema };
  }
  const parsed = ToolSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("").replace(/^\./, "") || "the tool";
    return { skipped: { name, reason: `${where}: ${issue?.message ?? "does not match the MCP Tool schema"}` } };
  }
  return { tool: parsed.data as Tool };
}

/**
 * Every page of `tools/list`, each tool checked on its own; `keep` filters by name (include/exclude).
 * `headerRules`: a 2026-07-28 Streamable HTTP session, where a tool with invalid `x-mcp-header` declarations is left out.
 */
export async function listTools(client: Client, timeout: number, keep: (name: string) => boolean, headerRules = false): Promise<{ tools: Tool[]; skipped: SkippedTool[] }> {
  const entries = await allPages((cursor) =>
    client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, LenientList as never, { timeout }).then((r) => {
      const page = r as unknown as z.infer<typeof LenientList>;
      return { items: page.tools, nextCursor: page.nextCursor };
    }),
  );
  const tools: Tool[] = [];
  const skipped: SkippedTool[] = [];
  entries.forEach((raw, i) => {
    const name = isObject(raw) && typeof raw.name === "string" ? raw.name : undefined;
    if (name !== undefined && !keep(name)) return;
    const r = checkTool(raw, i);
    const fault = "tool" in r && headerRules ? xMcpHeaderFault(r.tool.inputSchema) : undefined;
    if (fault) skipped.push({ name: name!, reason: fault });
    else if ("tool" in r) tools.push(r.tool);
    else skipped.push(r.skipped);
  });
  // What the SDK's listTools does after listing: output-schema validators for callTool (and which
  // tools need tasks). Private in the SDK's types, so called if present; a schema its validator
  // cannot compile costs only that tool's output check.
  const cache = (client as unknown as { cacheToolMetadata?(tools: Tool[]): void }).cacheToolMetadata;
  if (typeof cache === "function") {
    try {
      cache.call(client, tools);
    } catch {
      try {
        cache.call(client, tools.filter((t) => !t.outputSchema));
      } catch {
        /* no output validation then: the gate still checks inputs */
      }
    }
  }
  return { tools, skipped };
}
