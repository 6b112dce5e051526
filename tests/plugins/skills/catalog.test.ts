/** The catalog's budget, allowed-tools mapping and file listing, as pure functions. */
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import type { RegisteredSkill } from "../../../core/index.js";
import { buildCatalog, HEADER, MIN_DESCRIPTION, settingsOf, shorten } from "../../../plugins/skills/catalog.js";
import { listSkillFiles, MAX_FILES } from "../../../plugins/skills/files.js";
import { cleanupTemp, tempDir, writeFile } from "../../helpers/project.js";

afterAll(cleanupTemp);

const ROOT = "/work/project";
const skill = (name: string, scope: string | undefined, description = `The ${name} skill. ${"More words about when to use it. ".repeat(8)}`.trim(), meta: Record<string, unknown> = {}): RegisteredSkill => ({
  name,
  description,
  content: `Body of ${name}.`,
  path: path.join(ROOT, ".agent/skills", name, "SKILL.md"),
  source: scope ?? "some-plugin",
  plugin: "skills",
  meta: { ...(scope ? { scope } : {}), ...meta },
});

const mixed = [skill("b-bundled", "bundled"), skill("p-project", "project"), skill("i-inline", undefined), skill("u-user", "user"), skill("p-second", "project"), skill("b-second", "bundled")];

test("everything fits: listed in precedence order, nothing cut", () => {
  const c = buildCatalog(mixed, settingsOf(undefined), ROOT);
  expect(c.budget).toBe(8000);
  expect(c.lines.map((l) => l.name)).toEqual(["p-project", "p-second", "u-user", "i-inline", "b-bundled", "b-second"]);
  expect(c.shortened).toEqual([]);
  expect(c.leftOut).toEqual([]);
  expect(c.text.startsWith(HEADER)).toBe(true);
  expect(c.text).toContain(`- p-project: ${mixed[1].description} (.agent/skills/p-project/SKILL.md)`);
  expect([...c.states.values()].every((s) => s === "listed")).toBe(true);
});

test("a little over: every long description is cut to one length, never below the minimum", () => {
  const full = buildCatalog(mixed, settingsOf(undefined), ROOT).text.length;
  const c = buildCatalog(mixed, settingsOf({ budget: full - 200 }), ROOT);
  expect(c.text.length).toBeLessThanOrEqual(full - 200);
  expect(c.leftOut).toEqual([]);
  expect(c.shortened).toHaveLength(6);
  for (const l of c.text.split("\n").filter((x) => x.startsWith("- "))) expect(l).toMatch(/… \(/);
  expect(c.states.get("p-project")).toBe("shortened");
});

test("far over: skills are left out, bundled first, then plugins', then the user's, then the project's", () => {
  const lineAtMin = `- p-project: ${"x".repeat(MIN_DESCRIPTION)} (.agent/skills/p-project/SKILL.md)`.length;
  const c = buildCatalog(mixed, settingsOf({ budget: HEADER.length + 3 * lineAtMin + 100 }), ROOT);
  expect(c.lines.map((l) => l.name)).toEqual(["p-project", "p-second", "u-user"]);
  expect(c.leftOut).toEqual(["i-inline", "b-bundled", "b-second"]);
  expect(c.text).toContain("(3 more skills left out");
  expect(c.text.length).toBeLessThanOrEqual(c.budget);
  for (const l of c.lines) expect(shorten(l.description, MIN_DESCRIPTION).length).toBeGreaterThanOrEqual(MIN_DESCRIPTION - 2);
  expect(c.states.get("b-second")).toBe("left out");
  // A budget nothing fits in: no section at all.
  const none = buildCatalog(mixed, settingsOf({ budget: 0 }), ROOT);
  expect(none.text).toBe("");
  expect(none.leftOut).toHaveLength(6);
});

test("disabled, always-on and user-only skills stay out of the catalog (and its budget)", () => {
  const skills = [...mixed, skill("hands-off", "project", "Only for the user.", { disableModelInvocation: true })];
  const c = buildCatalog(skills, settingsOf({ disabled: ["p-second"], always: ["u-user", "missing"] }), ROOT);
  expect(c.lines.map((l) => l.name)).toEqual(["p-project", "i-inline", "b-bundled", "b-second"]);
  expect(c.always.map((s) => s.name)).toEqual(["u-user"]);
  expect(Object.fromEntries(c.states)).toMatchObject({ "p-second": "disabled", "u-user": "always", "hands-off": "user-only" });
});

test("descriptions are one line in the catalog; a skill without a path shows its source", () => {
  const c = buildCatalog([{ name: "remote", description: "Two\nlines.", content: () => Promise.resolve(""), source: "mcp:docs", plugin: "mcp" }], settingsOf(undefined), ROOT);
  expect(c.text).toContain("- remote: Two lines. (mcp:docs)");
});


test("a skill's files: absolute, SKILL.md and hidden entries skipped, bounded in count", () => {
  const dir = tempDir("skill-files-");
  writeFile(path.join(dir, "SKILL.md"), "x");
  writeFile(path.join(dir, ".hidden/x"), "x");
  writeFile(path.join(dir, "node_modules/dep/index.js"), "x");
  writeFile(path.join(dir, "scripts/run.sh"), "x");
  for (let i = 0; i < MAX_FILES + 5; i++) writeFile(path.join(dir, "assets", `a${String(i).padStart(3, "0")}.txt`), "x");
  const s = { name: "many", description: "d", content: "", source: "project", plugin: "skills", meta: { dir } };
  const { files, more } = listSkillFiles(s);
  expect(files).toHaveLength(MAX_FILES);
  expect(files[0]).toBe(path.join(dir, "assets/a000.txt"));
  expect(more).toBe(6); // 105 assets + scripts/run.sh - 100 listed
  expect(files.some((f) => f.includes("node_modules") || f.includes(".hidden") || f.endsWith("SKILL.md"))).toBe(false);
  expect(listSkillFiles({ ...s, meta: { files: ["skill://x/a.md", 3] } }).files).toEqual(["skill://x/a.md"]);
});
