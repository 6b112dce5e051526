/**
 * `agent trust [dir]`, `agent trust --list`, `agent untrust [dir]`: the user's decision about a folder,
 * kept in the user config folder (never in the folder). Trusting records every part the folder would run
 * or widen with, as it is now; a part added later is held back until `agent trust` is run again.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { defaultUserConfigDir, realFolder, trustDecision, trustedFolders, untrustFolder } from "../../core/embed.js";
import { trustLines } from "../trust-text.js";
import { trustHere } from "../trust-question.js";
import { defineAppCommand } from "./_define.js";

function folderArg(cwd: string, given: string | undefined, usageError: (m: string) => never): string {
  const dir = path.resolve(cwd, given ?? ".");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) usageError(`${given ?? dir} is not a folder`);
  return dir;
}

export const trust = defineAppCommand({
  name: "trust",
  description: "trust this folder (or [dir]): its config code, plugins, hooks, MCP servers and rules load [--list]",
  usage: "[dir] | --list",
  details:
    "Until a folder is trusted, agent-host loads from it only what narrows what the agent may do (deny and ask rules, plan mode, the model, instructions); nothing of it runs. Trusting a folder trusts its subfolders (your home folder and / only themselves). The decision is kept in your user config folder. A part added after it (a new hook, server, plugin or a changed config file) is not loaded until you run agent trust again. AGENT_TRUST=1 trusts the folder for one run.",
  options: { list: { type: "boolean", description: "list the trusted folders" } },
  async run(ctx) {
    if (ctx.values.list) {
      const folders = trustedFolders(defaultUserConfigDir());
      if (!folders.length) ctx.print("No trusted folders.");
      else ctx.print(ctx.table(folders.map((f) => [f.path, f.trustedAt.slice(0, 16).replace("T", " "), f.parts === undefined ? "all" : String(f.parts)]), ["FOLDER", "TRUSTED", "PARTS"]));
      return 0;
    }
    if (ctx.positionals.length > 1) ctx.usageError("agent trust takes one folder");
    const { file, report } = await trustHere(folderArg(ctx.cwd, ctx.positionals[0], ctx.usageError));
    ctx.print(`Trusted ${report.folder} (kept in ${file}).`);
    if (report.items.length) ctx.print(`What it loads now:\n${trustLines(report.items, report.folder).join("\n")}`);
    else ctx.print("It has nothing that runs or widens permissions today; parts added later load too.");
    return 0;
  },
});

export const untrust = defineAppCommand({
  name: "untrust",
  description: "forget the trust decision about this folder (or [dir])",
  usage: "[dir]",
  async run(ctx) {
    if (ctx.positionals.length > 1) ctx.usageError("agent untrust takes one folder");
    const dir = path.resolve(ctx.cwd, ctx.positionals[0] ?? ".");
    const forgot = untrustFolder(defaultUserConfigDir(), dir);
    const covering = trustDecision(defaultUserConfigDir(), dir);
    ctx.print(forgot ? `${realFolder(dir)} is no longer trusted.` : `${realFolder(dir)} was not trusted by a decision of its own.`);
    if (covering) ctx.print(`It is still trusted through ${covering.path}: agent untrust ${JSON.stringify(covering.path)} to end that.`);
    return 0;
  },
});
