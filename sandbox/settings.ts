/**
 * Config `sandbox` as the sandbox uses it: defaults filled in, `~` expanded, relative paths taken from
 * the project root. Folder trust has already narrowed what an untrusted folder's files said.
 */
import { homedir } from "node:os";
import path from "node:path";
import type { AgentConfig } from "../core/index.js";

export type SandboxNetwork = "none" | "all" | readonly string[];

export interface SandboxSettings {
  readonly enabled: boolean;
  readonly required: boolean;
  readonly hooks: boolean;
  /** Absolute paths (they may not exist). */
  readonly allowWrite: readonly string[];
  readonly denyRead: readonly string[];
  readonly network: SandboxNetwork;
}

/** `~` and `~/x` are in the home folder; other relative paths are taken from `root`. */
export function expandPath(p: string, root: string): string {
  if (p === "~") return homedir();
  if (p.startsWith("~/")) return path.join(homedir(), p.slice(2));
  return path.resolve(root, p);
}

export function sandboxSettings(config: AgentConfig["sandbox"], root: string): SandboxSettings {
  const c = config ?? {};
  return {
    enabled: c.enabled !== false,
    required: c.required === true,
    hooks: c.hooks === true,
    allowWrite: (c.allowWrite ?? []).map((p) => expandPath(p, root)),
    denyRead: (c.denyRead ?? []).map((p) => expandPath(p, root)),
    network: c.network ?? "none",
  };
}

/** The network setting in a few words. */
export function describeNetwork(n: SandboxNetwork): string {
  if (n === "none") return "none";
  if (n === "all") return "all (unrestricted)";
  return n.length ? `only ${n.join(", ")} (through a local proxy)` : "none (an empty host list)";
}
