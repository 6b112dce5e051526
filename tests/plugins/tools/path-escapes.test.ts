/**
 * Path rules and confinement judge where a path leads, not how it is spelt. The table below is what
 * an attacker who can make symlinks in the workspace (a `run_command ln -s`) would try against deny
 * rules on `secrets/`, an absolute deny rule on a folder of an extra root, an allow rule on `public/`,
 * and confinement. Races are in path-races.test.ts.
 *
 * Layout: root/ (the workspace) with secrets/key.txt, ok.txt, public/readme.md; shared/ (an extra root)
 * with private/token.txt; outside/ (no root) with secret.txt.
 *
 * Not in the table, and out of reach: a hard link `root/hl -> outside/secret.txt` is the outside file
 * itself (same inode, a real path inside the workspace). Case tricks (`SECRETS/key.txt`) only reach the
 * folder on a case-insensitive file system (macOS, Windows), where the real path, spelt as it is on
 * disk, is a subject too; on Linux `SECRETS/` is another folder, which does not exist.
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host } from "../../../core/index.js";
import { createHost } from "../../helpers/host.js";
import toolsPlugin from "../../../plugins/tools/index.js";
import { attachFiles } from "../../../cli/session-input.js";
import { createStyle } from "../../../cli/render/_style.js";

const KEY = "KEY-7f3a";
const TOKEN = "TOKEN-91c2";
const OUTSIDE = "OUTSIDE-55e0";

let base: string;
let root: string;
let shared: string;
let outside: string;
let host: Host;
let allowHost: Host;

const tools = [{ name: "tools", load: async () => toolsPlugin }];
const fileTools = ["read_file", "write_file", "edit_file", "list_files", "grep"];

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-paths-")));
  root = path.join(base, "root");
  shared = path.join(base, "shared");
  outside = path.join(base, "outside");
  for (const d of ["root/secrets", "root/public", "root/a", "shared/private", "outside"]) mkdirSync(path.join(base, d), { recursive: true });
  writeFileSync(path.join(root, "secrets/key.txt"), `${KEY}\n`);
  writeFileSync(path.join(root, "ok.txt"), "ok\n");
  writeFileSync(path.join(root, "public/readme.md"), "public\n");
  writeFileSync(path.join(shared, "private/token.txt"), `${TOKEN}\n`);
  writeFileSync(path.join(outside, "secret.txt"), `${OUTSIDE}\n`);
  const link = (target: string, at: string) => symlinkSync(target, path.join(root, at));
  link("secrets", "lnk"); // a folder link to the denied folder
  link(path.join(root, "secrets"), "abs-lnk"); // the same, absolute
  link("../secrets", "a/b"); // a link in a subfolder, `..` in its target
  link("secrets/key.txt", "keylink"); // a file link into it
  link("c2", "c1"); // a chain: c1 -> c2 -> secrets/key.txt
  link("secrets/key.txt", "c2");
  link("secrets/new.txt", "dangling"); // a dangling link into it
  link("../secrets/key.txt", "public/lnk.md"); // inside a folder an allow rule covers
  link(path.join(shared, "private"), "sh"); // to a folder an absolute deny rule names
  link(outside, "outlnk"); // out of the workspace
  link(path.join(outside, "secret.txt"), "outfile");
  link("loop2", "loop1");
  link("loop1", "loop2");
  const deny = [...fileTools.map((t) => `${t}(secrets/**)`), ...fileTools.map((t) => `${t}(//${shared.slice(1)}/private/**)`)];
  host = await createHost({ cwd: root, userConfigDir: false, builtins: tools, permissionMode: "bypass", config: { permissions: { deny }, workspace: { roots: [shared] } } });
  allowHost = await createHost({ cwd: root, userConfigDir: false, builtins: tools, permissionMode: "default", config: { permissions: { allow: ["write_file(public/**)", "edit_file(public/**)"] } } });
});

afterAll(async () => {
  await host?.close();
  await allowHost?.close();
  rmSync(base, { recursive: true, force: true });
});

type Outcome = "denied" | "outside" | "refused";
/** [what is tried, tool, input, outcome]: `denied` by a rule, `outside` the workspace, `refused` by the tool (a loop). */
const attempts: [string, string, Record<string, unknown>, Outcome][] = [
  ["read a folder symlink to the denied folder", "read_file", { path: "lnk/key.txt" }, "denied"],
  ["read an absolute folder symlink to it", "read_file", { path: "abs-lnk/key.txt" }, "denied"],
  ["read through a link in a subfolder (`a/b -> ../secrets`)", "read_file", { path: "a/b/key.txt" }, "denied"],
  ["read a file symlink into it", "read_file", { path: "keylink" }, "denied"],
  ["read a chain of links (c1 -> c2 -> secrets/key.txt)", "read_file", { path: "c1" }, "denied"],
  ["`..` through a link, spelt to the denied folder", "read_file", { path: "lnk/../secrets/key.txt" }, "denied"],
  ["`..` then a link", "read_file", { path: "a/../lnk/key.txt" }, "denied"],
  ["read the absolute path of the link", "read_file", { path: "ROOT/lnk/key.txt" }, "denied"],
  ["read a link to a folder an absolute `//` deny rule names", "read_file", { path: "sh/token.txt" }, "denied"],
  ["grep a folder symlink to the denied folder", "grep", { pattern: "KEY", path: "lnk" }, "denied"],
  ["grep a file symlink into it", "grep", { pattern: "KEY", path: "keylink" }, "denied"],
  ["grep with a glob through the link", "grep", { pattern: "KEY", path: "a/b" }, "denied"],
  ["grep a link to an absolute-denied folder", "grep", { pattern: "TOKEN", path: "sh" }, "denied"],
  ["list a folder symlink to the denied folder", "list_files", { path: "lnk" }, "denied"],
  ["list with a pattern through the link (`lnk/**`)", "list_files", { pattern: "lnk/**" }, "denied"],
  ["list with a pattern naming the denied folder", "list_files", { pattern: "secrets/**" }, "denied"],
  ["list with a pattern through a subfolder link", "list_files", { path: "a", pattern: "b/*.txt" }, "denied"],
  ["write through a folder link", "write_file", { path: "lnk/new.txt", content: "x" }, "denied"],
  ["write through a dangling link into it", "write_file", { path: "dangling", content: "x" }, "denied"],
  ["write through a file link", "write_file", { path: "keylink", content: "x" }, "denied"],
  ["edit through a chain", "edit_file", { path: "c1", old_string: "KEY", new_string: "K" }, "denied"],
  ["read a folder link out of the workspace", "read_file", { path: "outlnk/secret.txt" }, "outside"],
  ["read a file link out of the workspace", "read_file", { path: "outfile" }, "outside"],
  ["list with a pattern through a link out (`outlnk/**`)", "list_files", { pattern: "outlnk/**" }, "outside"],
  ["list with a plain path through a link out", "list_files", { pattern: "outlnk/secret.txt" }, "outside"],
  ["grep through a link out", "grep", { pattern: "OUTSIDE", path: "outlnk" }, "outside"],
  ["write through a link out", "write_file", { path: "outlnk/new.txt", content: "x" }, "outside"],
  ["edit a file link out", "edit_file", { path: "outfile", old_string: "OUTSIDE", new_string: "x" }, "outside"],
  ["read a symlink loop", "read_file", { path: "loop1" }, "outside"],
];

describe("a path is judged where it leads (deny rules, an absolute rule, confinement)", () => {
  it.each(attempts)("%s: %s is refused", async (_what, tool, spec, outcome) => {
    const input = { ...spec, ...(typeof spec.path === "string" ? { path: spec.path.replace(/^ROOT/, root) } : {}) };
    const r = await host.tools.call(tool, input);
    expect(r.ok, r.output).toBe(false);
    if (outcome === "denied") {
      expect(r.error?.code).toBe("E_TOOL_DENIED");
      expect(r.output).toMatch(/deny rule/);
    } else {
      expect(r.error?.code).toBe("E_PATH_OUTSIDE_WORKSPACE");
      expect(r.output).toMatch(/outside the workspace|symbolic links/);
    }
    for (const secret of [KEY, TOKEN, OUTSIDE]) expect(r.output).not.toContain(secret);
    expect(readFileSync(path.join(root, "secrets/key.txt"), "utf8")).toBe(`${KEY}\n`);
    expect(existsSync(path.join(root, "secrets/new.txt"))).toBe(false);
    expect(existsSync(path.join(outside, "new.txt"))).toBe(false);
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe(`${OUTSIDE}\n`);
  });

  it("what the rules do not name still works, links that stay allowed included", async () => {
    expect((await host.tools.call("read_file", { path: "lnk/../ok.txt" })).output).toBe("1\tok");
    expect((await host.tools.call("read_file", { path: "ok.txt" })).output).toBe("1\tok");
    const w = await host.tools.call("write_file", { path: "fresh/dir/new.txt", content: "n\n" });
    expect(w.output).toBe("Created fresh/dir/new.txt (2 bytes)");
    expect((await host.tools.call("edit_file", { path: "fresh/dir/new.txt", old_string: "n", new_string: "m" })).ok).toBe(true);
    expect(readFileSync(path.join(root, "fresh/dir/new.txt"), "utf8")).toBe("m\n");
  });

  it("a walk from above a denied folder leaves it out (its files were never judged), and never follows a link", async () => {
    const list = await host.tools.call("list_files", { pattern: "**/*" });
    expect(list.ok).toBe(true);
    expect(list.output).toContain("ok.txt");
    expect(list.output).not.toMatch(/secrets\/|key\.txt|token|secret\.txt/);
    const g = await host.tools.call("grep", { pattern: `${KEY}|${TOKEN}|${OUTSIDE}` });
    expect(g.output).toMatch(/^No matches/);
    const fromShared = await host.tools.call("grep", { pattern: TOKEN, path: shared });
    expect(fromShared.output).toMatch(/^No matches/);
  });

  it("the denial names where the path led, so the user sees why", async () => {
    const r = await host.tools.call("read_file", { path: "lnk/key.txt" });
    expect(r.output).toContain('"read_file(secrets/**)"');
  });
});

describe("an allow rule must cover where a path leads too", () => {
  it("a link inside an allowed folder to a file outside it is asked (denied headless), not allowed", async () => {
    for (const [tool, input] of [
      ["write_file", { path: "public/lnk.md", content: "x" }],
      ["edit_file", { path: "public/lnk.md", old_string: KEY, new_string: "x" }],
    ] as const) {
      const r = await allowHost.tools.call(tool, input);
      expect(r.error?.code, r.output).toBe("E_TOOL_DENIED");
      expect(r.output).toMatch(/needs approval/);
      // The rules that would allow it name both where it is spelt and where it leads.
      expect(r.output).toContain(`"${tool}(/secrets/key.txt)"`);
    }
    expect(readFileSync(path.join(root, "secrets/key.txt"), "utf8")).toBe(`${KEY}\n`);
    const plain = await allowHost.tools.call("write_file", { path: "public/new.md", content: "fine\n" });
    expect(plain.output).toBe("Created public/new.md (5 bytes)");
  });
});

describe("@file attachments are judged as read_file calls", () => {
  const plain = createStyle(false);
  it.each([
    ["@lnk/key.txt", /not attached: Permission denied/],
    ["@keylink", /not attached: Permission denied/],
    ["@c1", /not attached: Permission denied/],
    ["@lnk", /not attached: Permission denied/],
    ["@outfile", /outside the workspace; not attached/],
    ["@outlnk/secret.txt", /outside the workspace; not attached/],
  ])("%s is not attached", async (mention, said) => {
    const lines: string[] = [];
    const out = await attachFiles(host, `look at ${mention}`, (l) => lines.push(l), plain);
    expect(out).toBe(`look at ${mention}`);
    expect(lines.join("\n")).toMatch(said);
    for (const secret of [KEY, TOKEN, OUTSIDE]) expect(out + lines.join("")).not.toContain(secret);
  });
  it("@ok.txt is attached", async () => {
    const out = await attachFiles(host, "see @ok.txt", () => {}, plain);
    expect(out).toContain('<attached file="ok.txt">\n1\tok\n</attached>');
  });
});

describe("a hard link is out of reach (documented, not pretended)", () => {
  it("a hard link to an outside file reads the outside file: it is the same inode, with a real path inside", async () => {
    const hl = path.join(root, "hardlink.txt");
    try {
      linkSync(path.join(outside, "secret.txt"), hl);
    } catch {
      return expect.fail("hard links are expected to work in the temp folder");
    }
    const r = await host.tools.call("read_file", { path: "hardlink.txt" });
    // What the README says: only an OS sandbox or the file's permissions keep such a file out.
    expect(r.output).toContain(OUTSIDE);
    rmSync(hl);
  });
});
