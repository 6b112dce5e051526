/**
 * Risk of an MCP tool. The user decides: a per-tool `risk` in the server's entry (or
 * `tools.overrides`, which the host applies over whatever a plugin declares) wins. Otherwise what the
 * server says about its tools (annotations, names, descriptions) is a claim by the server: it may
 * raise the risk, never lower it below `execute`, the risk of a tool we cannot place. Only for a
 * server the user trusts (`"trust": true` in its entry) is the claim taken as it is: annotations
 * (only the hints it actually sets), then the name, then the description, unknown → `execute`.
 */
import type { Risk } from "../../core/index.js";
import { globMatcher } from "./config.js";

export interface ToolAnnotationsLike {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
}

const EXECUTE = new Set(["run", "exec", "execute", "shell", "command", "cmd", "eval", "evaluate", "spawn", "script", "terminal", "bash", "sh", "zsh", "powershell", "kill", "launch", "invoke"]);
const WRITE = new Set([
  "write", "create", "delete", "del", "remove", "rm", "update", "edit", "set", "put", "post", "insert", "move", "mv", "rename",
  "upload", "modify", "patch", "append", "save", "drop", "push", "commit", "merge", "add", "replace", "clear", "reset", "install",
  "uninstall", "apply", "deploy", "publish", "send", "archive", "close", "submit", "approve", "assign", "comment", "label", "fork",
  "toggle", "enable", "disable", "store", "upsert", "change", "mkdir", "copy", "cp", "touch", "truncate", "purge", "destroy", "revert",
]);
const NETWORK = new Set(["fetch", "http", "https", "url", "web", "browse", "browser", "download", "request", "curl", "scrape", "crawl", "navigate", "webhook", "email", "internet"]);
const READ = new Set([
  "get", "list", "read", "search", "find", "query", "describe", "show", "view", "lookup", "count", "stat", "stats", "info", "status",
  "head", "tail", "cat", "grep", "ls", "check", "inspect", "explain", "diff", "log", "logs", "history", "summarize", "echo", "ping",
  "validate", "compute", "calculate", "tree", "retrieve", "open", "print", "help", "version", "whoami", "resolve", "preview",
]);

/** `read_file`, `readFile`, `read-file`, `read.file` → ["read", "file"]. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

function fromName(name: string): Risk | undefined {
  const ws = words(name);
  if (ws.some((w) => EXECUTE.has(w))) return "execute";
  if (ws.some((w) => WRITE.has(w))) return "write";
  if (ws.some((w) => NETWORK.has(w))) return "network";
  if (ws.length && READ.has(ws[0])) return "read";
  return undefined;
}

function fromDescription(description: string): Risk | undefined {
  const d = description.toLowerCase();
  if (/\bread[- ]only\b|\bdoes not (modify|change)\b|\bwithout (modifying|changing)\b|\bno side[- ]effects\b/.test(d)) return "read";
  if (/\bexecutes?\b.*\b(command|script|code|program)s?\b|\bruns?\b.*\b(command|script|shell)s?\b/.test(d)) return "execute";
  if (/\b(deletes?|removes?|overwrites?|writes?|modif(y|ies)|creates?|updates?)\b/.test(d)) return "write";
  if (/\b(fetch(es)?|downloads?|http|urls?|internet|web ?pages?)\b/.test(d)) return "network";
  return undefined;
}

export function inferRisk(tool: { name: string; description?: string; annotations?: ToolAnnotationsLike }): Risk {
  const a = tool.annotations ?? {};
  const byName = fromName(tool.name);
  // Reaching outside (a web API, another service) is "network" whether or not it writes there:
  // acceptEdits mode must not auto-allow, say, deleting a remote repository.
  if (a.openWorldHint === true) return "network";
  if (a.readOnlyHint === true) return "read";
  if (a.destructiveHint === true) return byName === "execute" ? "execute" : "write";
  const guess = byName ?? fromDescription(tool.description ?? "");
  if (a.readOnlyHint === false) return guess === "execute" ? "execute" : "write";
  return guess ?? "execute";
}

/** The risk override from config for an MCP tool name: an exact key first, then `*` globs. */
export function riskOverride(overrides: Record<string, Risk>, toolName: string): Risk | undefined {
  if (Object.hasOwn(overrides, toolName)) return overrides[toolName];
  for (const [pattern, risk] of Object.entries(overrides)) {
    if (/[*?]/.test(pattern) && globMatcher([pattern])(toolName)) return risk;
  }
  return undefined;
}

/** How much a risk asks of the user: `network` and `execute` are asked for in every mode but bypass. */
const RANK: Record<Risk, number> = { read: 0, write: 1, network: 2, execute: 2 };

/** The risk an MCP tool is registered with (see the top of this file). */
export function mcpToolRisk(
  tool: { name: string; description?: string; annotations?: ToolAnnotationsLike },
  server: { risk: Record<string, Risk>; trust?: boolean },
): Risk {
  const configured = riskOverride(server.risk, tool.name);
  if (configured) return configured;
  const claimed = inferRisk(tool);
  if (server.trust === true) return claimed;
  return RANK[claimed] >= RANK.execute ? claimed : "execute";
}
