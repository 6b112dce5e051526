/**
 * The package format the CLI hands core (`createHost({ packageFormats })`): a plugin entry or
 * `--plugin-dir` naming a Claude Code plugin folder or an Agent Plugins 1.0 package loads through it,
 * and the installed plugins enabled for this project are added. An installed copy whose files no longer
 * hash to what the lock recorded is not loaded, and says so: updates here are explicit and exact.
 */
import { type PluginPackageFormat } from "../../core/index.js";
import { defaultUserConfigDir } from "../../core/embed.js";
import { enabledPlugins } from "./enabled.js";
import { hashFolder, statFingerprint } from "./hash.js";
import { packageKind, readPackage } from "./package.js";
import { dataDirOf, entryAt, insideCache, readLock, recordVerified, verifiedFingerprint, type LockEntry } from "./store.js";
import { toPlugin } from "./to-plugin.js";

export function claudePluginFormat(options: { userConfigDir?: string } = {}): PluginPackageFormat {
  const home = () => options.userConfigDir ?? defaultUserConfigDir();
  return {
    name: "Claude Code",
    claims: (dir) => packageKind(dir) !== undefined,
    async load(dir) {
      const entry = entryAt(readLock(home()), dir);
      if (!entry && insideCache(home(), dir)) throw new Error(`${dir} is in the plugin cache but not in the lock (${home()}/plugins/lock.json); install it again`);
      if (entry) verifyCopy(home(), entry, dir);
      const pkg = readPackage(dir);
      return toPlugin(pkg, { dataDir: dataDirOf(home(), entry?.id ?? `${pkg.name}@inline`), ...(entry?.userConfig ? { userConfig: entry.userConfig } : {}) });
    },
    async installed(where) {
      if (!where.userConfigDir) return [];
      return enabledPlugins(where.userConfigDir, where.projectRoot, where.trusted).map((e) => e.path);
    },
  };
}

/**
 * The installed copy's files still hash to the lock's sha256, or throw saying so. The content is hashed
 * again only when the files' metadata changed since it last matched (a big plugin costs a few `lstat`s
 * per start, not a read of every file).
 */
function verifyCopy(home: string, entry: LockEntry, dir: string): void {
  const fingerprint = statFingerprint(dir);
  if (verifiedFingerprint(home, entry.id, entry.sha256) === fingerprint) return;
  const now = hashFolder(dir);
  if (now !== entry.sha256) {
    throw new Error(`its files changed since install (sha256 ${now.slice(0, 12)}…, the lock has ${entry.sha256.slice(0, 12)}…); not loaded until \`agent plugin update ${entry.id}\` or a re-install`);
  }
  try {
    recordVerified(home, entry.id, entry.sha256, fingerprint);
  } catch {
    // only a cache: the next start hashes again
  }
}
