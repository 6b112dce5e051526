/**
 * Config sources: files another tool wrote, read as config (Claude Code's settings are the built-in
 * one: plugins/claude-settings). Config is read before any plugin's setup, so a source is not a hook a
 * plugin taps: the composition root passes it (`createHost({ configSources })`, as it passes `builtins`)
 * and `loadConfig` asks it with the files. The kernel keeps the order and the folder's trust.
 */
import type { AgentConfig } from "./config-schema.js";

/** Where a part of the config came from: `agent config` shows them. */
export interface ConfigOrigin {
  /** The key: `model`, `permissions.deny`, `hooks.PreToolUse`, `env.FOO`… */
  key: string;
  file: string;
  /** A permission rule as merged (or another value worth showing). */
  value?: string;
  /** The rule as the file wrote it, when it was translated (`Read(./.env)`). */
  written?: string;
  /** Why the part was not applied, or how it was read. */
  note?: string;
}

/** One file a config source read. Its errors are thrown as a `ConfigError` naming the file and the key. */
export interface ConfigSourceFile {
  file: string;
  /**
   * `user`: the user's own, merged as written under agent-host's own files. `folder`: the project's,
   * merged under them as far as the folder's trust admits (it may narrow, never widen). `policy`: an
   * administrator's, merged over every file.
   */
  scope: "user" | "folder" | "policy";
  /** Core's keys, ready to merge (paths absolute): the source vouches for their shape. */
  core: AgentConfig;
  /** Keys plugins own (`hooks`…), checked by their owners' schemas; with no owner, only reported. */
  extra: Record<string, unknown>;
  /** Which key came from the file (a part the folder's trust held back is dropped from them). */
  origins: ConfigOrigin[];
  /** Parts deliberately not applied (reported as warnings). */
  warnings: string[];
  /** A `policy` file only: its allow rules are the only ones that allow (every file's ask and deny rules still hold). */
  onlyItsAllowRules?: boolean;
}

/** A source of config files: asked once per config load, when files are read and `compat.<name>` is not false. */
export interface ConfigSource {
  /** `compat.<name>: false` in agent-host's own config turns the source off. */
  readonly name: string;
  /**
   * Its files, lowest precedence first (`user` and `folder` files go under agent-host's own, `policy` ones
   * over them). `projectRoot`: the project root; `userFiles`: false when user-level files are not read.
   */
  read(at: { projectRoot: string; userFiles: boolean }): Promise<ConfigSourceFile[]>;
}
