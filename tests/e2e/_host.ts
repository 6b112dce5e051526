/**
 * agent-host packed and installed once for the e2e files, as `npm install -g agent-host-<v>.tgz` would put
 * it: `npm pack` of this repository, then that tarball installed (with agent-host's dependencies, placed from
 * its lock) into a prefix of its own. Both take a while (the install most), and each e2e file used to do
 * them itself. Kept in os.tmpdir()/agent-host-e2e/<digest of what the tarball holds>: the first file to ask
 * builds it while holding kit's file lock (withFileLockAsync), a file that asks meanwhile waits for it (a condition),
 * and a later run of the same build finds it. Tests read it and never write to it: a file that installs more
 * into a project copies the prefix first (copyInstalledHost).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../helpers/paths.js";
import { installProject, pack } from "./_npm.js";
import { withFileLockAsync } from "../../kit/fs/file-lock.js";

export interface InstalledHost {
  /** The agent-host tarball `npm pack` made. */
  tarball: string;
  /** Paths inside the tarball, as `npm pack` lists them. */
  files: string[];
  /** The prefix it is installed in: node_modules/agent-host, its dependencies, node_modules/.bin/agent. */
  prefix: string;
}

const CACHE = path.join(os.tmpdir(), "agent-host-e2e");
/** What the tarball holds (package.json "files", package.json itself) and the lock the install is made from. */
const INPUTS = ["package.json", "package-lock.json", "README.md", "dist", "skills", "templates"];

function digest(): string {
  const hash = createHash("sha256");
  const add = (rel: string): void => {
    const file = path.join(REPO_ROOT, rel);
    if (!existsSync(file)) return;
    if (statSync(file).isDirectory()) {
      for (const name of readdirSync(file).sort()) add(path.join(rel, name));
      return;
    }
    hash.update(`${rel}\0`).update(readFileSync(file)).update("\0");
  };
  for (const rel of INPUTS) add(rel);
  return hash.digest("hex").slice(0, 16);
}

async function build(dir: string): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const packed = await pack(REPO_ROOT, tmp);
  await installProject(path.join(tmp, "prefix"), [packed.file]);
  writeFileSync(path.join(tmp, "packed.json"), JSON.stringify({ tarball: path.basename(packed.file), files: packed.files }));
  renameSync(tmp, dir);
}

/** Cache folders of other builds not used for a day go (other worktrees' builds may be in use meanwhile). */
function prune(keep: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of existsSync(CACHE) ? readdirSync(CACHE) : []) {
    const dir = path.join(CACHE, name);
    try {
      if (dir !== keep && !name.includes(".") && statSync(dir).mtimeMs < dayAgo) rmSync(dir, { recursive: true, force: true });
    } catch {} // another run pruned it first
  }
}

function read(dir: string): InstalledHost {
  const { tarball, files } = JSON.parse(readFileSync(path.join(dir, "packed.json"), "utf8")) as { tarball: string; files: string[] };
  return { tarball: path.join(dir, tarball), files, prefix: path.join(dir, "prefix") };
}

/** agent-host packed and installed from this repository's build (npm run build first), built once per build. */
export async function installedHost(waitMs = 600_000): Promise<InstalledHost> {
  const dir = path.join(CACHE, digest());
  mkdirSync(CACHE, { recursive: true });
  if (!existsSync(dir)) {
    // Another file may be building it: wait for its lock (a dead builder's is taken over), then look again.
    // The build blocks its event loop (npm runs synchronously), so the lock is judged stale by age only after waitMs.
    await withFileLockAsync(dir, async () => {
      if (!existsSync(dir)) await build(dir);
    }, { waitMs, staleMs: waitMs, onWait: () => {} });
    prune(dir);
  }
  const now = new Date();
  utimesSync(dir, now, now); // in use: prune() leaves it
  return read(dir);
}

/**
 * A project in `dest` (which must not exist) that starts as a copy of the installed prefix (agent-host
 * installed, nothing else yet). `cp -a`: ~1 s for its 13,000 files where fs.cpSync took ~10 s.
 */
export function copyInstalledHost(host: InstalledHost, dest: string): void {
  execFileSync("cp", ["-a", host.prefix, dest]);
}
