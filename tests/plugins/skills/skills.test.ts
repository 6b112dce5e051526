/** Skills reach the model: the catalog, `skills.always`, the `skill` tool, `/<skill>`, allowed-tools, events and audit. */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import type { PluginContext } from "../../../core/index.js";
import { systemOf, toolResults } from "../../core/loop-helpers.js";
import { cleanupTemp } from "../../helpers/project.js";
import { BASE_SKILLS_CONFIG, catalogOf, closeAll, isolateHome, skillEnum, skillMd, skillsHost, skillsProject } from "./_helpers.js";

let restoreHome: () => void;
beforeAll(() => void (restoreHome = isolateHome()));
afterEach(closeAll);
afterAll(() => {
  restoreHome();
  cleanupTemp();
});

test("the catalog, the always-on skill and the skill tool are in the request the model gets", async () => {
  const p = skillsProject();
  const t = await skillsHost(p, ["Hello.", "Again."]);
  expect(t.host.problems).toEqual([]);
  await t.host.run("hi");
  const system = systemOf("openai", t.srv.requests[0]);
  const catalog = catalogOf(system);
  expect(catalog).toContain("load that skill with the `skill` tool");
  expect(catalog).toContain("- pdf-forms: Fill in PDF forms. Use when the user asks to fill a form. (.agent/skills/pdf-forms/SKILL.md)");
  expect(catalog).toContain(`- release-notes: Write release notes. Use for changelog entries. (${p.userSkill("SKILL.md")})`);
  expect(catalog).toMatch(/- agent-host-plugin: .*\/skills\/agent-host-plugin\/SKILL\.md\)/); // bundled
  // disable-model-invocation, disabled and always-on skills are not offered in the catalog.
  for (const name of ["secret-handshake", "hidden-one", "house-style"]) expect(catalog).not.toContain(`- ${name}:`);
  expect(system).not.toContain("secret-handshake");
  expect(system).not.toContain("hidden-one");
  expect(system).toContain('# Skill "house-style" (always loaded)');
  expect(system).toContain("Always write British English.");
  expect(system.indexOf("Always write British English.")).toBeLessThan(system.indexOf("# Skills\n"));
  // The tool's enum is the catalog, in catalog order: project, user, bundled.
  expect(skillEnum(t.srv.requests[0].body)).toEqual(["echo-helper", "pdf-forms", "release-notes", "agent-host-plugin", "mcp-troubleshooting"]);
  expect(t.host.tools.get("skill")).toMatchObject({ risk: "read", plugin: "skills" });

  // The always-on skill is in every request, but loads (event, audit) once per conversation.
  await t.host.run("and again");
  expect(systemOf("openai", t.srv.requests[1])).toContain("Always write British English.");
  expect(t.of("skill_loaded")).toEqual([{ type: "skill_loaded", name: "house-style", source: "project:.agent/skills", by: "always", path: p.path(".agent/skills/house-style/SKILL.md") }]);
  expect(t.audit().filter((r) => r.kind === "skill")).toMatchObject([{ name: "house-style", outcome: "loaded", detail: { by: "always", source: "project:.agent/skills" } }]);
  expect(t.of("skills_trimmed")).toEqual([]); // nothing was cut, nothing to say
});

test("the model loads a skill in a turn: body and files back, read_file reads them outside the workspace, write_file may not; a second load is a no-op", async () => {
  const p = skillsProject();
  const entry = p.userSkill("templates/entry.md");
  const t = await skillsHost(
    p,
    [
      { toolCalls: [{ id: "c1", name: "skill", arguments: { name: "release-notes" } }] },
      { toolCalls: [{ id: "c2", name: "read_file", arguments: { path: entry } }, { id: "c3", name: "skill", arguments: { name: "release-notes" } }] },
      { text: "Done." },
    ],
    { permissionMode: "acceptEdits" },
  );
  // Before the skill loads, its folder is out of reach.
  expect((await t.host.tools.call("read_file", { path: entry })).output).toMatch(/outside the workspace/);

  expect(await t.host.run("write the release notes")).toMatchObject({ ok: true, text: "Done." });
  const [loaded] = toolResults("openai", t.srv.requests[1]);
  expect(loaded.id).toBe("c1");
  expect(loaded.content).toContain('Skill "release-notes" loaded.');
  expect(loaded.content).toContain("Start from templates/entry.md.");
  expect(loaded.content).toContain(`Folder: ${p.userSkill("")}`.replace(/\/$/, ""));
  expect(loaded.content).toContain(`- ${entry}`);
  expect(loaded.content).not.toContain("SKILL.md\n");
  const results = toolResults("openai", t.srv.requests[2]).slice(1);
  expect(results[0]).toMatchObject({ id: "c2", content: "1\t## vX.Y.Z" });
  expect(results[1].content).toMatch(/already loaded earlier in this conversation/);
  expect(results[1].content).not.toContain("Start from templates/entry.md.");

  // Read-only: even with writes allowed by the mode, the skill's folder cannot be written.
  const write = await t.host.tools.call("write_file", { path: entry, content: "changed\n" });
  expect(write.ok).toBe(false);
  expect(write.output).toMatch(/outside the workspace/);
  expect(readFileSync(entry, "utf8")).toBe("## vX.Y.Z\n");

  const byModel = t.of("skill_loaded").filter((e) => e.by === "model");
  expect(byModel).toEqual([{ type: "skill_loaded", name: "release-notes", source: "user:config", by: "model", path: p.userSkill("SKILL.md") }]);
  expect(t.audit().filter((r) => r.kind === "skill" && r.name === "release-notes")).toMatchObject([{ outcome: "loaded", detail: { by: "model", source: "user:config" } }]);
  expect(t.audit().filter((r) => r.kind === "grant" && r.outcome === "read-only")).toMatchObject([{ source: "skills", detail: { reason: "skill release-notes" } }]);

  // A cleared conversation holds no skill: loading it again gives the body again.
  t.host.session.clear();
  expect((await t.host.tools.call("skill", { name: "release-notes" })).output).toContain("Start from templates/entry.md.");
  expect(t.of("skill_loaded").filter((e) => e.by === "model")).toHaveLength(2);
});

test("/<skill> sends the body and the arguments as the prompt; user-only skills have one, disabled skills are hidden everywhere", async () => {
  const p = skillsProject();
  const t = await skillsHost(p, [{ toolCalls: [{ id: "c1", name: "skill", arguments: { name: "pdf-forms" } }] }, "Filled."]);
  const r = await t.host.commands.run("/pdf-forms fill in form.pdf", { asUser: true });
  expect(r.output).toBeUndefined();
  expect(r.prompt).toContain("The user ran /pdf-forms fill in form.pdf.");
  expect(r.prompt).toContain("Instructions of pdf-forms.");
  expect(r.prompt).toContain(`- ${p.path(".agent/skills/pdf-forms/scripts/fill.py")}`);
  expect(r.prompt).toMatch(/ARGUMENTS: fill in form\.pdf$/);
  expect(t.of("skill_loaded").at(-1)).toMatchObject({ name: "pdf-forms", by: "user" });
  expect(t.audit().filter((a) => a.kind === "skill" && a.name === "pdf-forms")).toMatchObject([{ outcome: "loaded", detail: { by: "user" } }]);

  // The prompt goes to the model; the model loading the same skill is told it is there already.
  await t.host.run(r.prompt!);
  expect(toolResults("openai", t.srv.requests[1])[0].content).toMatch(/already loaded earlier in this conversation/);
  expect(t.of("skill_loaded").filter((e) => e.name === "pdf-forms")).toHaveLength(1);
  // Again by the user with a task: the task goes on, the body is not repeated.
  expect((await t.host.commands.run("/pdf-forms the second form")).prompt).toBe(
    'Use the skill "pdf-forms" (already loaded earlier in this conversation) for this:\n\nthe second form',
  );

  // disable-model-invocation: out of the catalog and the tool, still a command.
  expect(await t.host.tools.call("skill", { name: "secret-handshake" })).toMatchObject({ ok: false, output: 'Skill "secret-handshake" is not available now.' });
  expect((await t.host.commands.run("/secret-handshake")).prompt).toContain("Instructions of secret-handshake.");
  expect(t.host.commands.get("secret-handshake")).toMatchObject({ source: "project:.claude/skills", argumentHint: "[args]" });

  // disabled: not registered, no command, not loadable.
  expect(t.host.skills.get("hidden-one")).toBeUndefined();
  expect(t.host.commands.get("hidden-one")).toBeUndefined();
  expect(await t.host.tools.call("skill", { name: "hidden-one" })).toMatchObject({ ok: false, output: 'Skill "hidden-one" is not available now.' });
});

test("$ARGUMENTS in a skill's body takes the command's arguments", async () => {
  const p = skillsProject({
    ".agent/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greet someone.\n---\n\nGreet $ARGUMENTS warmly.\n",
  });
  const t = await skillsHost(p);
  const { prompt } = await t.host.commands.run("/greet Ada Lovelace");
  expect(prompt).toContain("Greet Ada Lovelace warmly.");
  expect(prompt).not.toContain("ARGUMENTS:");
});

test("allowed-tools are refused headless (and said so), and granted with permissions.grants: allow, asked once per skill", async () => {
  const p = skillsProject();
  const headless = await skillsHost(p);
  const r = await headless.host.tools.call("skill", { name: "echo-helper" });
  expect(r.ok).toBe(true);
  expect(r.output).toContain("This skill lists allowed-tools: Bash(echo:*) Read WebFetch.");
  expect(r.output).toContain("Ignored (no such tool here): WebFetch.");
  expect(r.output).toContain("They were not granted (run_command(echo:*), read_file)");
  expect(headless.audit().filter((a) => a.kind === "grant" && a.outcome !== "read-only")).toMatchObject([
    { source: "skills", name: "run_command(echo:*), read_file", outcome: "refused", decision: "deny", detail: { reason: "skill echo-helper lists allowed-tools" } },
  ]);
  expect(headless.of("notice").some((n) => n.level === "warn" && /echo-helper .*not granted/.test(n.message))).toBe(true);
  expect((await headless.host.tools.call("run_command", { command: "echo hi" })).outcome).toBe("denied");
  await headless.host.close();

  const allowed = await skillsHost(p, [], { config: { permissions: { grants: "allow" } } });
  expect((await allowed.host.tools.call("run_command", { command: "echo hi" })).outcome).toBe("denied");
  const ok = await allowed.host.commands.run("/echo-helper");
  expect(ok.prompt).toContain("The user allowed run_command(echo:*), read_file for this session.");
  expect(await allowed.host.tools.call("run_command", { command: "echo hi" })).toMatchObject({ ok: true });
  expect((await allowed.host.tools.call("run_command", { command: "ls" })).outcome).toBe("denied"); // only what was listed
  await allowed.host.run(ok.prompt!);
  const granted = allowed.host.sessionId;
  allowed.host.session.clear(); // a new session id; the grants of this host stay
  expect((await allowed.host.tools.call("skill", { name: "echo-helper" })).output).toContain("allowed run_command(echo:*), read_file earlier in this session");
  const grants = allowed.audit().filter((a) => a.kind === "grant" && a.outcome !== "read-only" && a.session === granted);
  expect(grants).toMatchObject([{ outcome: "granted", by: "config:permissions.grants" }]);
  expect(allowed.of("permission_grant")).toHaveLength(1);
});

test("skills of other plugins, also registered after startup (MCP-style, with meta.files), are listed, loadable and commands", async () => {
  let late: PluginContext | undefined;
  const p = skillsProject();
  const t = await skillsHost(p, ["One.", { toolCalls: [{ id: "c1", name: "skill", arguments: { name: "remote-doc" } }] }, "Two.", "Three."], {
    plugins: [
      {
        name: "docs",
        skills: [{ name: "inline-one", description: "An inline skill of a plugin.", content: "Inline body." }],
        setup: (ctx) => void (late = ctx),
      },
    ],
  });
  await t.host.run("first");
  expect(catalogOf(systemOf("openai", t.srv.requests[0]))).toContain("- inline-one: An inline skill of a plugin. (docs)");
  expect(t.host.commands.get("inline-one")).toBeDefined();

  late!.skills.add({
    name: "remote-doc",
    description: "Docs served by a server.",
    content: "Remote body.",
    source: "mcp:docs",
    path: "skill://remote-doc/SKILL.md",
    meta: { files: ["skill://remote-doc/references/api.md"] },
  });
  await t.host.run("second");
  expect(skillEnum(t.srv.requests[1].body)).toContain("remote-doc");
  expect(catalogOf(systemOf("openai", t.srv.requests[1]))).toContain("- remote-doc: Docs served by a server. (skill://remote-doc/SKILL.md)");
  const [loaded] = toolResults("openai", t.srv.requests[2]);
  expect(loaded.content).toContain("Remote body.");
  expect(loaded.content).toContain("Resources of this skill (served by mcp:docs");
  expect(loaded.content).toContain("- skill://remote-doc/references/api.md");
  expect(t.host.commands.get("remote-doc")).toBeDefined();

  late!.skills.remove("remote-doc");
  await t.host.run("third");
  expect(skillEnum(t.srv.requests[3].body)).not.toContain("remote-doc");
  expect(t.host.commands.get("remote-doc")).toBeUndefined();
});

test("a project's skill wins a name clash with a plugin's inline skill; a skill's command loses to any other command", async () => {
  const p = skillsProject({ ".agent/skills/review/SKILL.md": skillMd("review", "Review code.") });
  const t = await skillsHost(p, [], {
    plugins: [
      {
        name: "other",
        skills: [{ name: "pdf-forms", description: "A plugin's pdf-forms.", content: "Theirs." }],
        commands: [{ name: "review", description: "Their /review", run: () => "their review" }],
      },
    ],
  });
  expect(t.host.skills.get("pdf-forms")).toMatchObject({ source: "project:.agent/skills" });
  expect((await t.host.commands.run("/review")).output).toBe("their review");
  expect(t.host.problems.map((x) => x.message)).toEqual(
    expect.arrayContaining([expect.stringMatching(/skill "pdf-forms" rejected/), expect.stringMatching(/command "review" rejected/)]),
  );
});

test("names in skills.always and skills.disabled that match no skill are reported once", async () => {
  const p = skillsProject();
  const t = await skillsHost(p, ["ok", "ok"], { config: { skills: { always: ["pdf-form"], disabled: ["nope"] } } });
  await t.host.run("a");
  await t.host.run("b");
  const messages = t.host.problems.map((x) => x.message);
  expect(messages).toEqual([
    'skills.always names "pdf-form", but no skill has that name (did you mean "pdf-forms"?); it is ignored.',
    'skills.disabled names "nope", but no skill has that name; it is ignored.',
  ]);
});

test("over budget: descriptions are shortened, then the lowest-precedence skills left out; skills_trimmed when the cut changes", async () => {
  const long = (what: string) => `${what}. ${"Use it when the task involves this particular kind of work, in detail, with all the usual steps. ".repeat(3)}`.trim();
  const p = skillsProject(Object.fromEntries(["alpha", "bravo", "charlie"].map((n) => [`.agent/skills/${n}/SKILL.md`, skillMd(n, long(`The ${n} skill`))])));
  let late: PluginContext | undefined;
  const budget = 1200;
  const t = await skillsHost(p, ["One.", "Two.", "Three."], {
    config: { skills: { ...BASE_SKILLS_CONFIG, budget } },
    plugins: [{ name: "late", setup: (ctx) => void (late = ctx) }],
  });
  await t.host.run("first");
  await t.host.run("second");
  const catalog = catalogOf(systemOf("openai", t.srv.requests[0]));
  expect(catalog.length).toBeLessThanOrEqual(budget);
  const trimmed = t.of("skills_trimmed");
  expect(trimmed).toHaveLength(1); // two requests, one cut: said once
  const [{ shortened, leftOut, listed }] = trimmed;
  // Precedence order of the candidates: project, user, bundled; what is left out is the tail.
  const order = ["alpha", "bravo", "charlie", "echo-helper", "pdf-forms", "release-notes", "agent-host-plugin", "mcp-troubleshooting"];
  expect(leftOut).toEqual(order.slice(order.length - leftOut.length));
  expect(leftOut).toEqual(expect.arrayContaining(["agent-host-plugin", "mcp-troubleshooting"]));
  expect(listed).toBe(order.length - leftOut.length);
  expect(shortened).toEqual(expect.arrayContaining(["alpha", "bravo", "charlie"]));
  expect(skillEnum(t.srv.requests[0].body)).toEqual(order.slice(0, listed));
  for (const name of shortened) expect(catalog).toMatch(new RegExp(`- ${name}: [^\\n]{95,}… \\(`));
  expect(catalog).toContain(`(${leftOut.length} more skills left out to fit the catalog's size; the user can still run them as /<name>.)`);
  for (const name of leftOut) {
    expect(catalog).not.toContain(`- ${name}:`);
    expect(t.host.commands.get(name)).toBeDefined(); // left out of the catalog, still a command
  }

  // A new skill changes the cut: said again.
  late!.skills.add({ name: "zulu", description: long("The zulu skill"), content: "Zulu." });
  await t.host.run("third");
  expect(t.of("skills_trimmed")).toHaveLength(2);
  expect(t.of("skills_trimmed")[1].leftOut).toContain("zulu");
});

test("Skill(name) rules (Claude Code's name for the skill tool) deny or allow that skill here", async () => {
  const p = skillsProject({
    ".agent/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greet someone.\n---\n\nGreet warmly.\n",
    ".claude/settings.json": { permissions: { deny: ["Skill(pdf-forms)"] } },
  });
  const t = await skillsHost(p);
  const denied = await t.host.tools.call("skill", { name: "pdf-forms" });
  expect(denied.outcome).toBe("denied");
  expect(denied.output).toContain("Skill(pdf-forms)");
  expect((await t.host.tools.call("skill", { name: "greet" })).ok).toBe(true);
  await t.host.close();
});
