/** The running agent-host's version: set at build time, read from package.json when running from source. */
import { readFileSync } from "node:fs";

declare const __AGENT_VERSION__: string;

let cached: string | undefined;

export function hostVersion(): string {
  if (typeof __AGENT_VERSION__ === "string") return __AGENT_VERSION__;
  if (cached) return cached;
  try {
    // core/ and dist/ are both one folder below the package root.
    cached = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    cached = "0.0.0-dev";
  }
  return cached;
}
