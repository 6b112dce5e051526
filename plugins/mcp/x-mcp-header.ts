/**
 * SEP-2243 (2026-07-28, Streamable HTTP): a tool may name input properties whose values the client
 * mirrors into `Mcp-Param-<Name>` headers (`"x-mcp-header": "<Name>"`). A client MUST leave out a tool
 * whose declarations break the rules: the name a non-empty RFC 9110 token, unique whatever its case, on
 * a string, integer or boolean property reached through `properties` alone.
 */
const X_MCP_HEADER = "x-mcp-header";
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
/** Keywords whose values are data, not subschemas. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "required"]);

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why a tool's header declarations must leave it out, or undefined (none, or all valid). */
export function xMcpHeaderFault(inputSchema: unknown): string | undefined {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (Array.isArray(node)) {
      for (const item of node) {
        const fault = visit(item, path, false);
        if (fault) return fault;
      }
      return undefined;
    }
    if (!isObject(node)) return undefined;
    const where = path.length ? path.join(".") : "the input schema";
    if (X_MCP_HEADER in node) {
      const name = node[X_MCP_HEADER];
      if (!reachable || !path.length) return `${where}: x-mcp-header is allowed only on a property reached through "properties"`;
      if (typeof name !== "string" || !name) return `${where}: x-mcp-header must be a non-empty string`;
      if (!TOKEN.test(name)) return `${where}: x-mcp-header ${JSON.stringify(name)} is not an HTTP header name (no spaces, colons, control or non-ASCII characters)`;
      if (typeof node.type !== "string" || !HEADER_TYPES.has(node.type)) return `${where}: x-mcp-header is allowed only on a string, integer or boolean property (this one is ${JSON.stringify(node.type ?? "untyped")})`;
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header ${JSON.stringify(name)} is declared twice (also as ${JSON.stringify(prior)})`;
      seen.set(name.toLowerCase(), name);
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key) || key === X_MCP_HEADER) continue;
      const fault =
        key === "properties" && isObject(value)
          ? Object.entries(value).reduce<string | undefined>((f, [prop, sub]) => f ?? visit(sub, [...path, prop], reachable), undefined)
          : visit(value, [...path, `<${key}>`], false);
      if (fault) return fault;
    }
    return undefined;
  };
  return visit(inputSchema, [], true);
}

/** Whether the schema declares any header to mirror (then a call needs the tool's definition). */
export function declaresHeaders(inputSchema: unknown): boolean {
  return JSON.stringify(inputSchema ?? null).includes(`"${X_MCP_HEADER}"`);
}
