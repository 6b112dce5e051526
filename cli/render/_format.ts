/** Short human formats shared by the renderers and the interactive session. */

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m}m ${String(s).padStart(2, "0")}s`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Keys whose value best says what a call does, in order of preference. */
const TELLING_KEYS = ["command", "path", "file_path", "file", "pattern", "query", "url", "name", "text"];

/** One line saying what a tool call is about: its most telling argument, else compact JSON. */
export function summarizeInput(input: unknown, max = 60): string {
  if (input === undefined || input === null) return "";
  if (typeof input !== "object" || Array.isArray(input)) return clip(typeof input === "string" ? input : JSON.stringify(input), max);
  const obj = input as Record<string, unknown>;
  const key = TELLING_KEYS.find((k) => typeof obj[k] === "string");
  if (key) return clip(String(obj[key]), max);
  const keys = Object.keys(obj);
  if (keys.length === 0) return "";
  return clip(JSON.stringify(obj), max);
}

export function clip(s: string, max: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, Math.max(1, max - 1))}…` : flat;
}

export function firstLine(s: string): string {
  return s.split("\n").find((l) => l.trim())?.trim() ?? "";
}
