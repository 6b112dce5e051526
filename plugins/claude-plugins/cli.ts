/**
 * `agent plugin marketplace add|list|update|remove`, `agent plugin install|uninstall|enable|disable|
 * list|update`: Claude Code's plugin commands. Definitions only; the work is imported when one runs.
 */
import type { CliCommand } from "../../core/index.js";

const json = { json: { type: "boolean", description: "print JSON" } } as const;
const scope = { scope: { type: "string", short: "s", valueName: "<user|project|local>", description: "where it applies: user (default, every project), project (.claude/settings.json), local (.claude/settings.local.json)" } } as const;
const yes = { yes: { type: "boolean", short: "y", description: "say yes to what an update adds (hook commands, servers) without asking" } } as const;

const ops = () => import("./cli-run.js");

const marketplace: CliCommand<any> = {
  name: "marketplace",
  description: "Claude Code marketplaces: add, list, update, remove",
  subcommands: [
    {
      name: "add",
      description: "add a marketplace: a folder, a git URL (cloned with your git) or owner/repo on GitHub",
      usage: "<path | git URL | owner/repo>[#ref]",
      run: async (ctx) => (await ops()).marketplaceAdd(ctx),
    },
    { name: "list", aliases: ["ls"], description: "list known marketplaces", options: json, positionals: false, run: async (ctx) => (await ops()).marketplaceList(ctx) },
    { name: "update", description: "fetch the newest of a marketplace (all when none is named)", usage: "[name]", run: async (ctx) => (await ops()).marketplaceUpdate(ctx) },
    { name: "remove", aliases: ["rm"], description: "forget a marketplace and uninstall its plugins", usage: "<name>", run: async (ctx) => (await ops()).marketplaceRemove(ctx) },
  ],
};

export const pluginSubcommands: CliCommand<any>[] = [
  marketplace,
  {
    name: "install",
    aliases: ["i"],
    description: "install a plugin from a marketplace (shows what it adds: commands, skills, hooks, servers)",
    usage: "<plugin>@<marketplace> [-s user|project|local] [--config KEY=VALUE]",
    options: { ...scope, config: { type: "string", short: "c", multiple: true, valueName: "KEY=VALUE", description: "a userConfig value the plugin asks for" } },
    run: async (ctx) => (await ops()).install(ctx),
  },
  {
    name: "uninstall",
    description: "remove an installed plugin (and its data folder unless --keep-data)",
    usage: "<plugin>@<marketplace>",
    options: { "keep-data": { type: "boolean", description: "keep the plugin's data folder" } },
    run: async (ctx) => (await ops()).uninstall(ctx),
  },
  { name: "enable", description: "enable an installed plugin", usage: "<plugin>@<marketplace> [-s user|project|local]", options: scope, run: async (ctx) => (await ops()).setEnabled(ctx, true) },
  { name: "disable", description: "disable an installed plugin", usage: "<plugin>@<marketplace> [-s user|project|local]", options: scope, run: async (ctx) => (await ops()).setEnabled(ctx, false) },
  {
    name: "list",
    aliases: ["ls"],
    description: "installed plugins: enabled here, version, sha256, what they add, what does not run here [--json]",
    options: json,
    positionals: false,
    run: async (ctx) => (await ops()).list(ctx),
  },
  {
    name: "update",
    description: "fetch an installed plugin again from its marketplace (all when none is named); asks again when it adds a hook or a server",
    usage: "[<plugin>@<marketplace>] [--yes]",
    options: yes,
    run: async (ctx) => (await ops()).update(ctx),
  },
];
