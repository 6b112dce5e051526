/**
 * The content pin: an installed copy loads only while its files hash to the lock's sha256. The check
 * skips re-reading the content while the files' metadata is what it was when it last matched, and that
 * shortcut never hides a change: the same size and a restored modification time still change the
 * change time.
 */
import { cpSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { claudePluginFormat } from "../../../plugins/claude-plugins/format.js";
import { hashFolder } from "../../../plugins/claude-plugins/hash.js";
import { cacheDir, updateLock, verifiedFile } from "../../../plugins/claude-plugins/store.js";
import { cleanupTemp, tempProject } from "../../helpers/project.js";
import { COMMIT_TOOLS } from "./_helpers.js";

afterAll(cleanupTemp);

test("a copy changed with its size and modification time kept is still refused; a whole one loads", async () => {
  const project = tempProject();
  const home = project.configHome;
  const copy = path.join(cacheDir(home), "m", "commit-tools", "1.0.0-x");
  cpSync(COMMIT_TOOLS, copy, { recursive: true });
  const sha256 = hashFolder(copy);
  updateLock(home, (lock) => {
    lock.plugins["commit-tools@m"] = { id: "commit-tools@m", name: "commit-tools", marketplace: "m", path: copy, sha256, source: "test", installedAt: "now", enabled: true, hooks: [], servers: [] };
  });
  const format = claudePluginFormat({ userConfigDir: home });
  expect((await format.load(copy)).name).toBe("commit-tools");
  expect(JSON.parse(readFileSync(verifiedFile(home), "utf8"))["commit-tools@m"].sha256).toBe(sha256);
  expect((await format.load(copy)).name).toBe("commit-tools");

  const file = path.join(copy, "commands", "commit.md");
  const before = statSync(file);
  const text = readFileSync(file, "utf8");
  writeFileSync(file, text.replace("Create", "Delete"));
  utimesSync(file, before.atime, before.mtime);
  expect(statSync(file).size).toBe(before.size);
  await expect(format.load(copy)).rejects.toThrow(/its files changed since install/);

  // A copy in the cache the lock does not know is refused too.
  const stray = path.join(cacheDir(home), "m", "other");
  cpSync(COMMIT_TOOLS, stray, { recursive: true });
  await expect(format.load(stray)).rejects.toThrow(/in the plugin cache but not in the lock/);
});
