/**
 * CLI subcommands a plugin contributes (`agent <name> …`), typed. The `agent` entry parses only the
 * first word, finds the command's owner, parses the rest with the command's declared options and hands
 * it a `CliContext`. Built-in commands (`agent run`, `agent tools`, …) are declared the same way.
 */
// Declared in contract.ts: a command's context opens the host, whose plugins contribute commands.
export type { CliCommand, CliContext, CliOpenHostOptions, CliOption, CliSessionHost, CliSessionHostOptions, CliValues } from "./contract.js";
