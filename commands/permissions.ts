/**
 * `/permissions [revoke N]`: the mode, this session's grants (numbered, revocable) and the saved rules
 * apart, and where to change them.
 */
import { defineCommand, type PluginHost, type SessionGrant } from "../core/index.js";

/** Who gave a grant, in words. */
function grantedBy(g: SessionGrant): string {
  if (g.by === "user:session") return "you, always this session";
  if (g.by === "user:project") return "you, for this project (also saved in .agent/settings.local.json)";
  if (g.by.startsWith("plugin:")) return `plugin ${g.by.slice("plugin:".length)}${g.reason ? ` (${g.reason})` : ""}`;
  return g.by;
}

function grantLines(host: PluginHost): string[] {
  const grants = host.permissionGrants;
  if (!grants.length) return ["Granted this session: none (answers \"always\" at a question show here)."];
  return ["Granted this session (/permissions revoke N takes one back):", ...grants.map((g, i) => `  ${i + 1}. ${g.rules.join(", ")}  (${grantedBy(g)})`)];
}

function show(host: PluginHost): string {
  const p = host.config.permissions ?? {};
  const list = (name: string, rules: readonly string[] | undefined) => `  ${name.padEnd(5)} ${rules?.length ? rules.join(", ") : "(none)"}`;
  return [
    `Mode: ${host.permissionMode} (change it with /mode)`,
    ...grantLines(host),
    "Saved rules (deny beats ask beats allow; a rule beats the mode):",
    list("deny", p.deny),
    list("ask", p.ask),
    list("allow", p.allow),
    `Grants asked by plugins (a skill's allowed-tools): ${p.grants ?? "ask"}`,
    `Rules live in ${host.configFiles.at(-1) ?? "a config file (.agentrc.json)"} under permissions.`,
  ].join("\n");
}

export default defineCommand({
  name: "permissions",
  description: "Show the permission mode, this session's grants and the saved rules; revoke N takes a grant back",
  argumentHint: "[revoke N]",
  run(args, { host, revokeGrant }) {
    const words = args.trim().split(/\s+/).filter(Boolean);
    if (!words.length) return show(host);
    const n = Number(words[1]);
    if (words[0] !== "revoke" || words.length !== 2 || !Number.isInteger(n)) return "Usage: /permissions, or /permissions revoke N (N as /permissions numbers the grants).";
    const revoked = revokeGrant(n);
    if (!revoked) {
      const count = host.permissionGrants.length;
      return `There is no grant ${words[1]}: ${count ? `this session has ${count} (1–${count})` : "this session has none"}.`;
    }
    const saved = revoked.by === "user:project" ? " It stays in .agent/settings.local.json for later sessions: remove it there to forget it." : "";
    return `Revoked: ${revoked.rules.join(", ")}. Calls it allowed will ask again.${saved}`;
  },
});
