/**
 * Skills served by MCP servers (the Skills Over MCP convention, SEP-2640): real stdio servers
 * (tests/fixtures/mcp/skills-server.mjs) whose `skill://<path>/SKILL.md` resources, or `skills/list`
 * entries, become host skills named `<server>-<name>`; bad ones are reported and skipped, the rest and
 * the server's tools keep working, and changes of the resource list are followed.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Host, RegisteredSkill } from "../../../core/index.js";
import { getMcpStatus } from "../../../plugins/mcp/status.js";
import { skillLocation, skillRegistryNames, skillServerPart, skillsFromListing, skillsFromResources } from "../../../plugins/mcp/skills/skill-uris.js";
import { cleanup, fixture, mcpHost, tempDir, waitFor } from "./_helpers.js";

afterAll(cleanup);

const fromServer = (host: Host, server: string): RegisteredSkill[] => host.skills.list().filter((s) => s.source === `mcp:${server}`);
const names = (host: Host, server: string): string[] => fromServer(host, server).map((s) => s.name).sort();
/** What the MCP plugin reported (other plugins' problems are not this file's business). */
const problems = (host: Host): string[] => host.problems.filter((p) => p.plugin === "mcp").map((p) => p.message);
/** The URIs the fixture was asked to read (its --reads log), in order. */
const readsOf = (file: string): string[] => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

describe("skills served by MCP servers (skill:// resources)", () => {
  it("registers every listed skill as <server>-<name> from its listing alone; a SKILL.md is read only when the skill is used", async () => {
    const reads = path.join(tempDir(), "reads.log");
    const host = await mcpHost({ docs: fixture("skills-server", "--broken", "--reads", reads) });
    expect(names(host, "docs")).toEqual(["docs-broken", "docs-code-review", "docs-git-workflow"]);
    // Connected and listed: not one file was read (SEP-2640: no retrieval ahead of need).
    expect(readsOf(reads)).toEqual([]);

    const review = host.skills.get("docs-code-review")!;
    expect(typeof review.content).toBe("function");
    expect(review).toMatchObject({
      // resources/list gives the SKILL.md's description.
      description: "Review code changes. Use when asked for a review.",
      path: "skill://code-review/SKILL.md",
      source: "mcp:docs",
      plugin: "mcp",
      meta: {
        scope: "mcp",
        server: "docs",
        skillName: "code-review",
        base: "skill://code-review",
        files: ["skill://code-review/references/x.md", "skill://code-review/scripts/run.sh"],
        readTool: "mcp__docs__resources",
        verified: false,
      },
    });
    // Without a listing's description, the catalog says where it comes from.
    expect(host.skills.get("docs-broken")!.description).toBe("Skill broken of MCP server docs (its listing gives no description).");
    expect(problems(host)).toEqual([]);

    // The model uses one: exactly that SKILL.md is read, and its body is what the model gets.
    const used = await host.tools.call("skill", { name: "docs-code-review" });
    expect(used).toMatchObject({ ok: true });
    expect(used.output).toContain("# Code review\n\nRead references/x.md first.");
    expect(readsOf(reads)).toEqual(["skill://code-review/SKILL.md"]);

    // An invalid one fails when used, naming the server and the skill; nothing else is affected.
    const broken = await host.tools.call("skill", { name: "docs-broken" });
    expect(broken).toMatchObject({ ok: false });
    expect(broken.output).toBe(
      'Skill "docs-broken" could not be loaded: MCP server docs: skill docs-broken (skill://broken/SKILL.md) was not loaded: its SKILL.md is not valid: name "not-broken" differs from the name its address gives, "broken".',
    );
    expect(await host.tools.call("mcp__docs__echo", { text: "still here" })).toMatchObject({ ok: true, output: "still here" });
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "connected", tools: 2, resources: true, skills: 3 });
  });

  it("/<skill> fetches its SKILL.md too, once per conversation", async () => {
    const reads = path.join(tempDir(), "reads.log");
    const host = await mcpHost({ docs: fixture("skills-server", "--reads", reads) });
    // The model loads one (the catalog, and the commands, now have the server's skills) ...
    expect(await host.tools.call("skill", { name: "docs-code-review" })).toMatchObject({ ok: true });
    // ... the user runs another: its SKILL.md alone is read, its body is the prompt.
    const run = await host.commands.run("/docs-git-workflow");
    expect(run.prompt).toContain("Instructions for git-workflow.");
    expect(readsOf(reads)).toEqual(["skill://code-review/SKILL.md", "skill://team/git-workflow/SKILL.md"]);
    expect(await host.commands.run("/docs-git-workflow")).toEqual({ output: 'Skill "docs-git-workflow" is already loaded earlier in this conversation.' });
    expect(readsOf(reads)).toHaveLength(2);
    // resources/list carries no frontmatter: what the fetched SKILL.md says of its use holds from then on.
    await waitFor(() => host.skills.get("docs-git-workflow")?.meta?.disableModelInvocation === true, "git-workflow learned to be user-only");
    expect(host.skills.get("docs-code-review")!.meta).toMatchObject({ allowedTools: ["Read", "Grep"], disableModelInvocation: false });
  });

  it("lets the model read a skill's files through mcp__<server>__resources", async () => {
    const host = await mcpHost({ docs: fixture("skills-server") });
    const read = await host.tools.call("mcp__docs__resources", { uri: "skill://code-review/references/x.md" });
    expect(read).toMatchObject({ ok: true, output: "# Extra reference\n\nDetails the skill points to." });
    const skillMd = await host.tools.call("mcp__docs__resources", { uri: "skill://code-review/SKILL.md" });
    expect(skillMd.output).toContain("name: code-review");
    const listing = await host.tools.call("mcp__docs__resources", {});
    expect(listing.output).toContain("- skill://code-review/scripts/run.sh");
    expect(host.tools.get("mcp__docs__resources")!.description).toContain("skill://");
  });

  it("adds and removes skills when the server's resource list changes (notifications/resources/list_changed)", async () => {
    const host = await mcpHost({ docs: fixture("skills-server") });
    expect(names(host, "docs")).toEqual(["docs-code-review", "docs-git-workflow"]);
    expect(await host.tools.call("mcp__docs__change_skills", {})).toMatchObject({ ok: true });
    await waitFor(() => names(host, "docs").includes("docs-deploy"), "skill docs-deploy");
    expect(names(host, "docs")).toEqual(["docs-code-review", "docs-deploy"]);
    expect(host.skills.get("docs-deploy")!.meta).toMatchObject({ files: ["skill://deploy/checklist.md"] });
  });

  it("follows a change the server makes by itself, and a reconnect gives the restarted server's skills", async () => {
    // The server changes its list, unasked, once this file exists: only after the test has seen the
    // original list (a delay instead could run out before a loaded machine lists it at all).
    const change = path.join(tempDir(), "change");
    const host = await mcpHost({ docs: fixture("skills-server", "--change-when", change) });
    expect(names(host, "docs")).toEqual(["docs-code-review", "docs-git-workflow"]);
    writeFileSync(change, "");
    await waitFor(() => names(host, "docs").includes("docs-deploy"), "skill docs-deploy");
    expect(names(host, "docs")).toEqual(["docs-code-review", "docs-deploy"]);
    // A fresh process has the original list again (and changes it again when told).
    rmSync(change);
    expect(await host.commands.run("/mcp reconnect docs")).toMatchObject({ output: expect.stringContaining("reconnected") });
    await waitFor(() => names(host, "docs").includes("docs-git-workflow"), "skill docs-git-workflow after the reconnect");
    writeFileSync(change, "");
    await waitFor(() => names(host, "docs").includes("docs-deploy"), "skill docs-deploy again");
  });

  it("adds the skills of a server that connects only later", async () => {
    const cwd = tempDir();
    const ready = path.join(cwd, "ready");
    // Fails to start until the flag file exists (a shell wrapper checks it).
    const script = `[ -e ${ready} ] || { echo "not ready" >&2; exit 3; }; exec ${process.execPath} ${fixture("skills-server").args[0]}`;
    const host = await mcpHost({ late: { command: "sh", args: ["-c", script] } }, { cwd });
    expect(getMcpStatus(host)[0]).toMatchObject({ status: "failed" });
    expect(fromServer(host, "late")).toEqual([]);
    writeFileSync(ready, "");
    expect(await host.commands.run("/mcp reconnect late")).toEqual({ output: "MCP server late reconnected: 2 tools." });
    await waitFor(() => names(host, "late").length === 2, "the skills of late");
    expect(names(host, "late")).toEqual(["late-code-review", "late-git-workflow"]);
  });

  it("reports, never silently drops, a skill whose name another server's skill already has", async () => {
    const host = await mcpHost({ my_docs: fixture("skills-server"), "my-docs": fixture("skills-server", "--no-skills") });
    expect(names(host, "my_docs")).toEqual(["my-docs-code-review", "my-docs-git-workflow"]);
    const twin = await mcpHost({ my_docs: fixture("skills-server"), "my-docs": fixture("skills-server") });
    // The first server in config order keeps the names; the second one's clash is reported by the registry.
    expect(names(twin, "my_docs")).toEqual(["my-docs-code-review", "my-docs-git-workflow"]);
    expect(fromServer(twin, "my-docs")).toEqual([]);
    expect(twin.problems.filter((p) => p.kind === "register").map((p) => p.message)).toEqual([
      expect.stringMatching(/my-docs-code-review.*duplicate skill name: already registered by mcp:my_docs/),
      expect.stringMatching(/my-docs-git-workflow.*duplicate skill name: already registered by mcp:my_docs/),
    ]);
  });

  it("registers nothing for a server without resources or without skill:// resources", async () => {
    const host = await mcpHost({ plain: fixture("skills-server", "--no-resources"), notes: fixture("skills-server", "--no-skills") });
    expect(fromServer(host, "plain")).toEqual([]);
    expect(fromServer(host, "notes")).toEqual([]);
    expect(problems(host)).toEqual([]);
    expect(getMcpStatus(host)).toMatchObject([
      { name: "plain", status: "connected", resources: false, skills: 0 },
      { name: "notes", status: "connected", resources: true, skills: 0 },
    ]);
    expect(await host.tools.call("mcp__plain__echo", { text: "ok" })).toMatchObject({ ok: true });
  });

  it("namespaces by the server's name: lowercased, _ and other characters become -", async () => {
    const host = await mcpHost({ My_Docs: fixture("skills-server") });
    expect(names(host, "My_Docs")).toEqual(["my-docs-code-review", "my-docs-git-workflow"]);
    expect(host.skills.get("my-docs-code-review")!.meta).toMatchObject({ server: "My_Docs", readTool: "mcp__My_Docs__resources" });
  });

  it("tells apart two skills of one server with the same name by their path prefix", async () => {
    const host = await mcpHost({ docs: fixture("skills-server", "--same-name") });
    expect(names(host, "docs")).toEqual(["docs-code-review", "docs-git-workflow", "docs-other-code-review"]);
    expect(host.skills.get("docs-code-review")!.path).toBe("skill://code-review/SKILL.md");
    expect(host.skills.get("docs-other-code-review")!.path).toBe("skill://other/code-review/SKILL.md");
  });

  it("refuses a SKILL.md over the size cap when it is used, and lists at most 100 skills of a server", async () => {
    const host = await mcpHost({ docs: { ...fixture("skills-server", "--oversize", "--many", "120") } });
    expect(problems(host)).toEqual(["MCP server docs offers 123 skills; only the first 100 are listed."]);
    // Listing order: code-review, git-workflow, huge, many-1 ... many-97.
    expect(fromServer(host, "docs")).toHaveLength(100);
    expect(host.skills.get("docs-many-97")).toBeDefined();
    expect(host.skills.get("docs-many-98")).toBeUndefined();
    const huge = await host.tools.call("skill", { name: "docs-huge" });
    expect(huge).toMatchObject({ ok: false });
    expect(huge.output).toContain("MCP server docs: skill docs-huge (skill://huge/SKILL.md) was not loaded: it is 200.0 KiB; at most 64.0 KiB are read (maxOutputBytes).");
    // The cap is the server's maxOutputBytes when it has one.
    const roomy = await mcpHost({ big: { ...fixture("skills-server", "--oversize"), maxOutputBytes: 300_000 } });
    expect(await roomy.tools.call("skill", { name: "big-huge" })).toMatchObject({ ok: true });
  });

  it("does not let a server that never sends a SKILL.md hold up the host or cost its tools", async () => {
    const host = await mcpHost({ slow: { ...fixture("skills-server", "--hang", "stuck"), toolTimeout: 500 } });
    expect(names(host, "slow")).toEqual(["slow-code-review", "slow-git-workflow", "slow-stuck"]);
    const stuck = await host.tools.call("skill", { name: "slow-stuck" });
    expect(stuck).toMatchObject({ ok: false });
    expect(stuck.output).toContain("MCP server slow: skill slow-stuck (skill://stuck/SKILL.md) could not be read: no answer within 500 ms.");
    expect(await host.tools.call("mcp__slow__echo", { text: "fine" })).toMatchObject({ ok: true, output: "fine" });
    // It was not marked loaded: a later use tries again.
    expect((await host.tools.call("skill", { name: "slow-stuck" })).output).toContain("could not be read");
  });

  it("reads no skills of a server with skills: false", async () => {
    const host = await mcpHost({ docs: { ...fixture("skills-server"), skills: false } });
    expect(fromServer(host, "docs")).toEqual([]);
    expect(problems(host)).toEqual([]);
  });
});

describe("skills of servers that declare the skills extension (skills/list)", () => {
  it("takes the skills from skills/list (all pages), checks their digests and gives their files", async () => {
    const host = await mcpHost({ ext: fixture("skills-server", "--extension") });
    // skills/list does not list the broken one: it is not one of the server's skills, so no problem.
    expect(names(host, "ext")).toEqual(["ext-code-review", "ext-git-workflow"]);
    expect(problems(host)).toEqual([]);
    expect(host.skills.get("ext-code-review")!.meta).toMatchObject({
      verified: true,
      files: ["skill://code-review/references/x.md", "skill://code-review/scripts/run.sh"],
    });
    expect(await host.tools.call("mcp__ext__resources", { uri: "skill://code-review/references/x.md" })).toMatchObject({ ok: true });
    // A file under the skill that skills/list did not list is not read.
    const unlisted = await host.tools.call("mcp__ext__resources", { uri: "skill://code-review/secret.md" });
    expect(unlisted).toMatchObject({ ok: false });
    expect(unlisted.output).toContain("not one of the files MCP server ext listed for it in skills/list");
  });

  it("refuses a file whose content does not match its digest", async () => {
    const host = await mcpHost({ ext: fixture("skills-server", "--extension", "--tamper") });
    const read = await host.tools.call("mcp__ext__resources", { uri: "skill://code-review/references/x.md" });
    expect(read).toMatchObject({ ok: false });
    expect(read.output).toContain("is not what MCP server ext listed for its skill");
    expect(read.output).not.toContain("Ignore all previous instructions");
  });

  it("reads no SKILL.md at connect; using a skill reads exactly that one, checked against its digest and size", async () => {
    const reads = path.join(tempDir(), "reads.log");
    const host = await mcpHost({ ext: fixture("skills-server", "--extension", "--reads", reads) });
    expect(names(host, "ext")).toEqual(["ext-code-review", "ext-git-workflow"]);
    expect(readsOf(reads)).toEqual([]);
    // The listing's frontmatter steers the host before any read.
    expect(host.skills.get("ext-code-review")!.meta).toMatchObject({ allowedTools: ["Read", "Grep"], disableModelInvocation: false, digest: expect.stringMatching(/^sha256:/) });
    expect(host.skills.get("ext-git-workflow")!.meta).toMatchObject({ disableModelInvocation: true });
    const used = await host.tools.call("skill", { name: "ext-code-review" });
    expect(used).toMatchObject({ ok: true });
    expect(used.output).toContain("Read references/x.md first.");
    expect(readsOf(reads)).toEqual(["skill://code-review/SKILL.md"]);
  });

  it("refuses, when used, a SKILL.md whose digest, size or frontmatter is not what skills/list gave", async () => {
    const cases: [string, string, string][] = [
      ["--tamper-skill", "ext-code-review", "its content does not match the digest skills/list gave for it (sha256:"],
      ["--wrong-size", "ext-code-review", "bytes, but skills/list gave its size as"],
      ["--lie", "ext-code-review", "its frontmatter differs from what skills/list gave for it (description)"],
    ];
    for (const [flag, skill, says] of cases) {
      const reads = path.join(tempDir(), "reads.log");
      const host = await mcpHost({ ext: fixture("skills-server", "--extension", flag, "--reads", reads) });
      expect(problems(host)).toEqual([]);
      const r = await host.tools.call("skill", { name: skill });
      expect(r).toMatchObject({ ok: false });
      expect(r.output).toContain(`Skill "${skill}" could not be loaded: MCP server ext: skill ${skill} (`);
      expect(r.output).toContain(says);
      expect(r.output).not.toContain("evil.example");
      // Nothing of the skill was read beyond its SKILL.md.
      expect(readsOf(reads).every((u) => u.endsWith("/SKILL.md"))).toBe(true);
    }
  });
});

describe("skill URIs and names", () => {
  it("recognizes <scheme>://<skill-path>/SKILL.md", () => {
    expect(skillLocation("skill://git-workflow/SKILL.md")).toEqual({ uri: "skill://git-workflow/SKILL.md", base: "skill://git-workflow", segments: ["git-workflow"] });
    expect(skillLocation("skill://acme/billing/refunds/SKILL.md")?.segments).toEqual(["acme", "billing", "refunds"]);
    expect(skillLocation("github://o/r/skills/refunds/SKILL.md")?.base).toBe("github://o/r/skills/refunds");
    for (const bad of ["skill://SKILL.md", "skill://x/skill.md.bak", "skill://x//SKILL.md", "skill://../SKILL.md", "file:///notes.txt"]) {
      expect(skillLocation(bad)).toBeUndefined();
    }
    // resources/list: only the skill:// scheme counts there.
    const { skills, total } = skillsFromResources(["github://o/r/x/SKILL.md", "skill://a/SKILL.md", "skill://a/b.md", "skill://ab/c.md"], 100);
    expect(total).toBe(1);
    expect(skills[0]).toMatchObject({ uri: "skill://a/SKILL.md", files: ["skill://a/b.md"] });
  });

  it("names skills <server>-<name>, reporting what cannot be made valid", () => {
    expect(skillServerPart("My_Server.v2")).toBe("my-server-v2");
    expect(skillServerPart("__")).toBe("");
    const locs = ["skill://ok/SKILL.md", "skill://Bad_Name/SKILL.md", `skill://${"l".repeat(61)}/SKILL.md`].map((u) => skillLocation(u)!);
    const named = skillRegistryNames("srv", locs);
    expect(named.get("skill://ok/SKILL.md")).toEqual({ name: "srv-ok" });
    expect(named.get("skill://Bad_Name/SKILL.md")).toMatchObject({ error: expect.stringContaining('"Bad_Name"') });
    expect(named.get(locs[2].uri)).toMatchObject({ error: expect.stringContaining("over 64 characters") });
    expect(skillRegistryNames("__", [locs[0]]).get(locs[0].uri)).toMatchObject({ error: expect.stringContaining("no letter or digit") });
    // Same name under two prefixes: both get their prefix; a clash that remains is an error.
    const twins = ["skill://a/x/SKILL.md", "skill://b/x/SKILL.md", "skill://a-x/SKILL.md"].map((u) => skillLocation(u)!);
    const t = skillRegistryNames("s", twins);
    expect([...t.values()]).toEqual([{ name: "s-a-x" }, { name: "s-b-x" }, { error: expect.stringContaining("already that of skill://a/x/SKILL.md") }]);
  });

  it("checks skills/list entries", () => {
    const digest = `sha256:${"0".repeat(64)}`;
    const { skills, problems: bad } = skillsFromListing([
      { uri: "skill://a/SKILL.md", frontmatter: { name: "a", description: "d" }, resources: [{ uri: "skill://a/SKILL.md", digest }, { uri: "skill://a/r.md", digest }] },
      { uri: "skill://b/SKILL.md", frontmatter: { name: "b", description: "d" } },
      { uri: "skill://c/SKILL.md", frontmatter: { name: "c", description: "d" }, resources: [{ uri: "skill://other/x.md", digest }] },
      { uri: "skill://d/SKILL.md", frontmatter: { name: "d", description: "d" }, resources: [{ uri: "skill://d/r.md", digest }] },
      { uri: "skill://e/SKILL.md", frontmatter: { name: "e", description: "d" }, resources: [{ uri: "skill://e/SKILL.md", digest: "md5:x" }] },
      { frontmatter: {} },
    ]);
    expect(skills.map((s) => [s.uri, s.files])).toEqual([
      ["skill://a/SKILL.md", ["skill://a/r.md"]],
      ["skill://b/SKILL.md", []],
    ]);
    expect(bad.map((p) => p.uri)).toEqual(["skill://c/SKILL.md", "skill://d/SKILL.md", "skill://e/SKILL.md", "skills/list entry 6"]);
    expect(bad[0].message).toContain("outside the skill");
    expect(bad[1].message).toContain("do not list the SKILL.md itself");
  });
});
