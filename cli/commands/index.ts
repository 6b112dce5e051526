/** The commands the CLI owns; plugins add theirs (`Plugin.cli`), and a built-in name wins a clash. */
import type { CliCommand } from "../../core/index.js";
import audit from "./audit.js";
import call from "./call.js";
import commands from "./commands.js";
import config from "./config.js";
import doctor from "./doctor.js";
import plugin from "./plugin.js";
import plugins from "./plugins.js";
import run from "./run.js";
import sessions from "./sessions.js";
import tools from "./tools.js";
import { trust, untrust } from "./trust.js";

export const CORE_COMMANDS: readonly CliCommand<any>[] = [run, sessions, tools, call, commands, plugins, plugin, config, audit, doctor, trust, untrust];
