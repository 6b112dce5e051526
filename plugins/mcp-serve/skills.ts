/** Skills as `skill://<name>/SKILL.md` resources: the catalog is the list, the body is what a read returns. */
import type { PluginHost } from "../../core/index.js";
import { skillBody } from "../../kit/index.js";

const uriOf = (name: string) => `skill://${encodeURIComponent(name)}/SKILL.md`;

export function skillResources(host: PluginHost) {
  return host.skills.list().map((s) => ({ uri: uriOf(s.name), name: s.name, description: s.description, mimeType: "text/markdown" }));
}

export async function readSkill(host: PluginHost, uri: string) {
  const skill = host.skills.list().find((s) => uriOf(s.name) === uri);
  if (!skill) throw Object.assign(new Error(`Resource not found: ${uri}`), { code: -32002 });
  // A skill loaded on use (an MCP server's) is loaded now; its failure is this read's error.
  return { contents: [{ uri, mimeType: "text/markdown", text: await skillBody(skill) }] };
}
