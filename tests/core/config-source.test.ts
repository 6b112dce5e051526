/**
 * The kernel's config sources (`createHost({ configSources })`), with a source of a tool it does not know:
 * asked once with the files, its files merged in scope order, a folder's narrowed by the folder's trust,
 * a policy over all, and `compat.<name>: false` turning it off.
 */
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../core/config/config.js";
import type { ConfigSource, ConfigSourceFile } from "../../core/embed.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterAll(cleanupTemp);

function source(files: (root: string) => ConfigSourceFile[]): ConfigSource & { asked: { projectRoot: string; userFiles: boolean }[] } {
  const asked: { projectRoot: string; userFiles: boolean }[] = [];
  return { name: "other", asked, read: async (at) => (asked.push(at), files(at.projectRoot)) };
}
const file = (f: string, scope: ConfigSourceFile["scope"], core: ConfigSourceFile["core"], more: Partial<ConfigSourceFile> = {}): ConfigSourceFile => ({
  file: f,
  scope,
  core,
  extra: {},
  origins: Object.keys(core).map((key) => ({ key, file: f })),
  warnings: [],
  ...more,
});

describe("a config source", () => {
  test("user and folder files go under agent-host's own, the folder's only as far as its trust admits, the policy over all", async () => {
    const p = tempProject({ ".agentrc.json": { permissions: { mode: "plan", deny: ["run_command(rm:*)"] } } });
    const src = source((root) => [
      file("/home/me/.other.json", "user", { permissions: { allow: ["read_file"], mode: "acceptEdits" } }, { warnings: ["a warning"] }),
      file(path.join(root, ".other.json"), "folder", { permissions: { allow: ["write_file"], deny: ["grep"] }, env: { X: "1" } }, { extra: { hooks: {} } }),
      file("/etc/other.json", "policy", { permissions: { allow: ["list_files"] } }, { onlyItsAllowRules: true }),
    ]);
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: p.configHome, trust: false, sources: [src] });
    expect(src.asked).toEqual([{ projectRoot: p.dir, userFiles: true }]);
    // The project's own mode wins over the user file's; the folder's deny holds; its allow and env wait for trust;
    // the policy's allow rules are the only ones left.
    expect(loaded.config.permissions).toEqual({ mode: "plan", allow: ["list_files"], deny: ["grep", "run_command(rm:*)"] });
    expect(loaded.config.env).toEqual({});
    expect(loaded.trust.report().skipped.map((i) => `${i.kind}:${i.name}`)).toEqual(["allow rule:write_file", "environment variable:X"]);
    expect(loaded.files).toEqual(["/home/me/.other.json", path.join(p.dir, ".other.json"), path.join(p.dir, ".agentrc.json"), "/etc/other.json"]);
    expect(loaded.warnings).toEqual(["a warning"]);
    expect(loaded.sections).toEqual([{ file: path.join(p.dir, ".other.json"), key: "hooks", value: {}, optional: true, folder: true }]);
    expect(loaded.origins.map((o) => o.file)).toContain("/etc/other.json");
  });

  test("compat.<name>: false in agent-host's own config turns it off; without files read it is not asked", async () => {
    const p = tempProject({ ".agentrc.json": { compat: { other: false } } });
    const off = source(() => [file("/x.json", "user", { model: "a:b" })]);
    expect((await loadConfig({ cwd: p.dir, userConfigDir: false, trust: true, sources: [off] })).config.model).toBeUndefined();
    expect(off.asked).toEqual([]);
    const q = tempProject();
    const unread = source(() => [file("/x.json", "user", { model: "a:b" })]);
    await loadConfig({ cwd: q.dir, readFiles: false, sources: [unread] });
    expect(unread.asked).toEqual([]);
    expect((await loadConfig({ cwd: q.dir, userConfigDir: false, sources: [unread] })).config.model).toBe("a:b");
    expect(unread.asked).toEqual([{ projectRoot: q.dir, userFiles: false }]);
  });

  test("compat naming no source of this host is a warning that names the file and the likely source", async () => {
    const p = tempProject({ ".agentrc.json": { compat: { otehr: false, zzz: true } } });
    const src = source(() => [file("/x.json", "user", { model: "a:b" })]);
    const loaded = await loadConfig({ cwd: p.dir, userConfigDir: false, trust: true, sources: [src] });
    const rc = path.join(p.dir, ".agentrc.json");
    expect(loaded.warnings).toEqual([
      `${rc}: compat.otehr names no config source of this host (did you mean compat.other?); known: other`,
      `${rc}: compat.zzz names no config source of this host; known: other`,
    ]);
    // The typo turned nothing off.
    expect(loaded.config.model).toBe("a:b");
  });
});
