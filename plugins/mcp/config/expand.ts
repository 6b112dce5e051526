/**
 * `${VAR}` and `${VAR:-default}` expansion, as Claude Code and other MCP clients do it in
 * `.mcp.json`. Unset variables without a default expand to "" and are reported, so a missing
 * token shows up as a warning instead of a mysterious 401 later.
 */
const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface Expansion {
  value: string;
  /** Variables that were referenced without a default and are not set. */
  missing: string[];
}

export function expandVars(input: string, env: NodeJS.ProcessEnv = process.env): Expansion {
  const missing: string[] = [];
  const value = input.replace(PATTERN, (_all, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== "") return v;
    if (fallback !== undefined) return fallback;
    if (v === undefined) missing.push(name);
    return "";
  });
  return { value, missing };
}
