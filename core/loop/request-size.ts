/**
 * How big a model request is, in characters: what a context manager turns into tokens (`ContextPoint.chars`,
 * `CompactionRequest.tokens`). Sizes of what does not change between requests (messages, tool schemas) are
 * measured once.
 */
import type { ModelMessage, ModelRequest } from "./model.js";

const sizes = new WeakMap<object, number>();

export function messageChars(m: ModelMessage): number {
  const known = sizes.get(m);
  if (known !== undefined) return known;
  let n = m.content.length + 16;
  if (m.role === "assistant") for (const c of m.toolCalls ?? []) n += c.name.length + c.id.length + JSON.stringify(c.input ?? {}).length + 16;
  if (m.role === "tool") n += m.toolCallId.length + m.name.length;
  sizes.set(m, n);
  return n;
}

function schemaChars(schema: object): number {
  let n = sizes.get(schema);
  if (n === undefined) sizes.set(schema, (n = JSON.stringify(schema).length));
  return n;
}

export function requestChars(r: Pick<ModelRequest, "system" | "tools"> & { messages: readonly ModelMessage[] }): number {
  let n = r.system.length;
  for (const m of r.messages) n += messageChars(m);
  for (const t of r.tools) n += t.name.length + t.description.length + (t.inputSchema && typeof t.inputSchema === "object" ? schemaChars(t.inputSchema) : 2) + 16;
  return n;
}
