/** `agent skills` and `agent doctor` report each skill's state, the catalog's cut included (the built CLI: npm run build first). */
import { afterAll, expect, test } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { cleanupTemp, tempDir } from "../../helpers/project.js";
import { skillMd, skillsProject } from "./_helpers.js";

afterAll(cleanupTemp);

const long = (what: string) => `${what}. ${"Use it when the task involves this particular kind of work, with all the usual steps. ".repeat(3)}`.trim();

function project() {
  const p = skillsProject(Object.fromEntries(["alpha", "bravo", "charlie"].map((n) => [`.agent/skills/${n}/SKILL.md`, skillMd(n, long(`The ${n} skill`))])));
  p.write(".agentrc.json", { skills: { disabled: ["hidden-one"], always: ["house-style"], budget: 1200 } });
  return p;
}
const cli = (p: ReturnType<typeof project>, args: string[]) => runCli(args, { cwd: p.dir, configHome: p.configHome, env: { HOME: tempDir("agent-home-") } });

test("agent skills --json: every skill's state, with the existing fields", async () => {
  const p = project();
  const r = await cli(p, ["skills", "--json"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const rows = JSON.parse(r.stdout) as { name: string; state: string; source: string; description: string; path?: string; plugin?: string }[];
  const state = Object.fromEntries(rows.map((x) => [x.name, x.state]));
  expect(state).toEqual({
    alpha: "shortened",
    bravo: "shortened",
    charlie: "shortened",
    "echo-helper": "listed",
    "house-style": "always",
    "pdf-forms": "listed",
    "secret-handshake": "user-only",
    "release-notes": "listed",
    "agent-host-plugin": "left out",
    "mcp-troubleshooting": "left out",
    "hidden-one": "disabled",
  });
  expect(rows.find((x) => x.name === "pdf-forms")).toEqual({
    name: "pdf-forms",
    description: "Fill in PDF forms. Use when the user asks to fill a form.",
    source: "project:.agent/skills",
    plugin: "skills",
    path: p.path(".agent/skills/pdf-forms/SKILL.md"),
    state: "listed",
  });

  const text = await cli(p, ["skills"]);
  expect(text.stdout).toMatch(/agent-host-plugin\s+left out\s+bundled/);
  expect(text.stdout).toMatch(/Catalog: 6 skills, \d+ of 1200 characters \(skills\.budget\); 3 shortened, 2 left out to fit\./);
});

test("agent doctor: skills by state, and the names shortened and left out", async () => {
  const p = project();
  const json = await cli(p, ["doctor", "--json"]);
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout).skills).toEqual({
    budget: 1200,
    states: { listed: 3, shortened: 3, "left out": 2, always: 1, "user-only": 1, disabled: 1 },
    shortened: ["alpha", "bravo", "charlie"],
    leftOut: ["agent-host-plugin", "mcp-troubleshooting"],
  });
  const text = await cli(p, ["doctor"]);
  expect(text.stdout).toContain("skills: 3 listed, 3 shortened, 2 left out, 1 always, 1 user-only, 1 disabled (budget 1200)\n");
});
