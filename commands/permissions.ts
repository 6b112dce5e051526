/** `/permissions`: the mode and the rules in force, and where to change them. */
import { defineCommand } from "../core/index.js";

export default defineCommand({
  name: "permissions",
  description: "Show the permission mode and rules",
  run(_args, { host }) {
    const p = host.config.permissions ?? {};
    const list = (name: string, rules: readonly string[] | undefined) => `  ${name.padEnd(5)} ${rules?.length ? rules.join(", ") : "(none)"}`;
    return [
      `Mode: ${host.permissionMode} (change it with /mode)`,
      "Rules (deny beats ask beats allow; a rule beats the mode):",
      list("deny", p.deny),
      list("ask", p.ask),
      list("allow", p.allow),
      `Grants asked by plugins (a skill's allowed-tools): ${p.grants ?? "ask"}`,
      `Rules live in ${host.configFiles.at(-1) ?? "a config file (.agentrc.json)"} under permissions.`,
    ].join("\n");
  },
});
