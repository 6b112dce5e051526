/**
 * The JSON Schema dialect of an MCP tool's schema that declares no `$schema`. MCP says 2020-12 (since
 * 2025-11-25), but many servers still write draft-07 without saying so: read as 2020-12, a draft-07 tuple
 * (`items` as an array) is not a valid schema and its arguments would go unchecked. So a schema that uses
 * what only draft-07 (and drafts 04-06) means — `items` as an array, `additionalItems`, `dependencies`,
 * `definitions` — and no keyword of 2019-09/2020-12 is read as draft-07; any other as 2020-12. A schema
 * that declares `$schema` is read as it says (kit's `schemaDialect` decides that before this fallback).
 */
import type { SchemaDialect } from "../../kit/index.js";

const ONLY_NEW = new Set(["prefixItems", "$defs", "unevaluatedItems", "unevaluatedProperties", "dependentRequired", "dependentSchemas", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$anchor", "minContains", "maxContains"]);
const ONLY_OLD = new Set(["additionalItems", "dependencies", "definitions"]);
/** Keywords whose value maps names to schemas: the names are not keywords. */
const NAMED_SCHEMAS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);
/** Keywords whose value is data, not a schema. */
const DATA = new Set(["enum", "const", "default", "examples", "required"]);
/** The walk looks at this many schema objects at most. */
const MAX_NODES = 10_000;

export function undeclaredDialect(schema: unknown): SchemaDialect {
  let oldOnly = false;
  let nodes = 0;
  const stack: unknown[] = [schema];
  while (stack.length && nodes++ < MAX_NODES) {
    const node = stack.pop();
    if (!node || typeof node !== "object" || Array.isArray(node)) continue;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (ONLY_NEW.has(key)) return "2020-12";
      if (ONLY_OLD.has(key) || (key === "items" && Array.isArray(value))) oldOnly = true;
      if (DATA.has(key) || !value || typeof value !== "object") continue;
      if (NAMED_SCHEMAS.has(key) && !Array.isArray(value)) stack.push(...Object.values(value));
      else if (Array.isArray(value)) stack.push(...value);
      else stack.push(value);
    }
  }
  return oldOnly ? "draft-07" : "2020-12";
}
