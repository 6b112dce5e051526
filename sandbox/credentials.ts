/**
 * Where credentials live, hidden from every sandboxed command (an empty folder, or /dev/null, in their
 * place): keys, cloud and registry tokens, and the config folders of the agent (trusted folders, OAuth
 * tokens) and of Claude Code. A command has no business reading them; a model tricked into trying is
 * the case this is for. `~/.npmrc` is among them: it is where `npm login` keeps `_authToken`.
 */
import { homedir } from "node:os";
import path from "node:path";
import { claudeUserDir, defaultUserConfigDir } from "../kit/fs/user-config-dir.js";

const HOME_ENTRIES = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".cargo/credentials",
  ".cargo/credentials.toml",
];

/** Absolute paths, read from the environment now (HOME, AGENT_CONFIG_HOME, CLAUDE_CONFIG_DIR may change in tests). */
export function credentialPaths(): string[] {
  const home = homedir();
  // The default places too: a variable pointing elsewhere does not make the default folder's tokens fair game.
  const dirs = [defaultUserConfigDir(), path.join(home, ".config", "agent"), claudeUserDir(), path.join(home, ".claude")];
  return [...new Set([...HOME_ENTRIES.map((e) => path.join(home, e)), ...dirs])];
}
