/**
 * A tool's `outputSchema`: its `structuredContent` is checked against it (JSON Schema 2020-12 unless the
 * schema declares another `$schema`, as the MCP spec says since 2025-11-25; no `$ref` is fetched). A result
 * without `structuredContent`, or with one that does not match, is an error result naming the path, as the
 * spec asks of clients ("MUST validate structured results against this schema"). The validator is compiled
 * on a tool's first call (ajv is loaded then, not at start-up).
 */
import type { JsonSchema, ToolReturn } from "../../core/index.js";
import { jsonSchemaValidator, type LazyValidator } from "../../kit/index.js";
import { undeclaredDialect } from "./schema-dialect.js";
import type { Tool } from "@modelcontextprotocol/client";

const validators = new WeakMap<object, LazyValidator>();

/** `(input)` (the root) and `a.b[0]` paths of the core validator, as paths inside `structuredContent`. */
function underStructured(issue: string): string {
  if (issue.startsWith("(input)")) return `structuredContent${issue.slice("(input)".length)}`;
  return `structuredContent.${issue}`;
}

/** The result as the model gets it: unchanged when it matches the tool's output schema (or the tool has none). */
export async function checkStructured(server: string, tool: Tool, returned: ToolReturn): Promise<ToolReturn> {
  const schema = tool.outputSchema as JsonSchema | undefined;
  const result = typeof returned === "string" ? { output: returned } : returned;
  if (!schema || result.isError) return returned;
  if (result.structured === undefined) {
    return { output: `MCP server ${server}: tool ${tool.name} declares an outputSchema but its result has no structuredContent.`, isError: true };
  }
  let lazy = validators.get(schema);
  if (!lazy) validators.set(schema, (lazy = jsonSchemaValidator(schema, undeclaredDialect(schema))));
  const validate = lazy.compiled ?? (await lazy());
  const checked = validate(result.structured);
  if (checked.ok) return returned;
  const issues = checked.issues.slice(0, 5).map(underStructured);
  const more = checked.issues.length > 5 ? ` (and ${checked.issues.length - 5} more)` : "";
  return {
    output: `MCP server ${server}: the result of tool ${tool.name} does not match its outputSchema: ${issues.join("; ")}${more}.`,
    isError: true,
  };
}
