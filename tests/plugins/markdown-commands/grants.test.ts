/**
 * `allowed-tools`: Claude Code names mapped to ours, before any `!` runs. A user command's are asked as a
 * session grant; a trusted project folder's own command applies its for its turn (see the last tests).
 */
import { existsSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { md, mdHost, useMdHosts } from "./_helpers.js";

useMdHosts();

const TOUCH = md("Made: !`touch granted.txt && echo yes`", { "allowed-tools": "Bash(touch:*), Bash(echo:*), Task, WebFetch" });

test("granted with permissions.grants: allow, the ! command runs without a rule; asked once per session", async () => {
  const t = await mdHost({}, { homeFiles: { ".claude/commands/make.md": TOUCH }, config: { permissions: { grants: "allow" } } });
  const first = await t.run("/make");
  expect(first).toEqual({ prompt: "Made: yes" });
  expect(existsSync(t.project.path("granted.txt"))).toBe(true);
  expect((await t.run("/make")).prompt).toBe("Made: yes");
  const grants = t.audit().filter((r) => r.kind === "grant");
  expect(grants).toHaveLength(1);
  expect(grants[0]).toMatchObject({ name: "run_command(touch:*), run_command(echo:*)", outcome: "granted", detail: { reason: "command /make lists allowed-tools" } });
  expect(t.logs.filter((l) => l.level === "warn").map((l) => l.msg)).toEqual(["[markdown-commands] /make: allowed-tools Task, WebFetch name no tool here; dropped."]);
});

test("refused headless by default: the ! command is denied, the user is told, and it is asked only once", async () => {
  const t = await mdHost({}, { homeFiles: { ".claude/commands/make.md": TOUCH } });
  const r = await t.run("/make");
  expect(r.prompt).toMatch(/^Made: \[!`touch granted\.txt && echo yes` was not run: Permission denied/);
  expect(r.output).toBe("/make: allowed-tools run_command(touch:*), run_command(echo:*) not granted; its ! commands ran under the usual permission rules.");
  expect(existsSync(t.project.path("granted.txt"))).toBe(false);
  await t.run("/make");
  expect(t.audit().filter((r) => r.kind === "grant").map((r) => r.outcome)).toEqual(["refused"]);
});

test("the user is asked in a terminal, once; a command run by code never asks", async () => {
  const asked: unknown[] = [];
  const t = await mdHost(
    {},
    {
      userFiles: { "commands/make.md": md("Touched: !`touch asked.txt`", { "allowed-tools": "run_command(touch:*)" }) },
      askPermission: async (req) => {
        asked.push(req);
        return "allow_once";
      },
    },
  );
  expect((await t.host.commands.run("/make")).output).toMatch(/not granted/);
  expect(asked).toEqual([expect.objectContaining({ subject: "touch asked.txt" })]); // the ! command itself, asked as any call
  asked.length = 0;
  await t.run("/make");
  await t.run("/make");
  expect(asked).toEqual([{ kind: "grant", plugin: "markdown-commands", rules: ["run_command(touch:*)"], reason: "command /make lists allowed-tools" }]);
});

test("a trusted project folder's command applies its allowed-tools for its turn, without asking, headless too", async () => {
  const asked: unknown[] = [];
  const t = await mdHost({ ".claude/commands/make.md": TOUCH }, { trust: true, askPermission: async (req) => (asked.push(req), "deny") });
  expect((await t.run("/make")).prompt).toBe("Made: yes");
  expect(existsSync(t.project.path("granted.txt"))).toBe(true);
  await t.host.run("the turn ends (no model here)").catch(() => {});
  expect((await t.host.tools.call("run_command", { command: "touch again.txt" })).outcome).toBe("denied");
  expect((await t.run("/make")).prompt).toBe("Made: yes");
  expect(asked.filter((q) => (q as { kind?: string }).kind === "grant")).toEqual([]);
  const grants = t.audit().filter((r) => r.kind === "grant");
  expect(grants.map((g) => [g.outcome, g.detail?.until])).toEqual([["granted", "end of turn"], ["granted", "end of turn"]]);
  expect(grants[0].by).toContain(".claude/commands/make.md");
});

test("an untrusted folder's command grants nothing and runs no ! command", async () => {
  const t = await mdHost({ ".claude/commands/make.md": TOUCH }, { trust: false, config: { permissions: { grants: "allow" } } });
  const r = await t.run("/make");
  expect(r.prompt).toMatch(/^Made: \[!`touch granted\.txt && echo yes` was not run: this folder is not trusted/);
  expect(existsSync(t.project.path("granted.txt"))).toBe(false);
  expect(t.audit().filter((x) => x.kind === "grant")).toEqual([]);
});

describe("a model in the frontmatter is the model of that command's turn, as in Claude Code", () => {
  const PROVIDERS = ["tools", "commands", "markdown-commands", "anthropic", "openai"];
  const withModel = (model: string, session: string) =>
    mdHost({ ".claude/commands/m.md": md("Hi", { model }) }, { builtinNames: PROVIDERS, config: { model: session } });

  test.each([
    ["claude-3-5-haiku-20241022", "anthropic:claude-sonnet-4-5", "anthropic:claude-3-5-haiku-20241022"],
    ["haiku", "anthropic:claude-sonnet-4-5", expect.stringMatching(/^anthropic:claude-.*haiku/)],
    ["openai:gpt-5.1-mini", "anthropic:claude-sonnet-4-5", "openai:gpt-5.1-mini"],
  ])("%s in a session on %s → %s", async (model, session, expected) => {
    const t = await withModel(model, session);
    expect(await t.run("/m")).toEqual({ prompt: "Hi", model: expected });
  });

  test.each([
    ["haiku", "openai:gpt-5.1", /frontmatter model "haiku" is anthropic:.*another provider than the session's \(openai\); the session's model answers/],
    ["fancy-model", "anthropic:claude-sonnet-4-5", /frontmatter model "fancy-model" is not a model known here; the session's model answers/],
  ])("%s in a session on %s: the session's model answers, said once", async (model, session, said) => {
    const t = await withModel(model, session);
    expect(await t.run("/m")).toEqual({ prompt: "Hi" });
    await t.run("/m");
    const infos = t.logs.filter((l) => l.level === "info").map((l) => l.msg);
    expect(infos).toHaveLength(1);
    expect(infos[0]).toMatch(said);
  });

  test("inherit is the session's model, without a word", async () => {
    const t = await withModel("inherit", "anthropic:claude-sonnet-4-5");
    expect(await t.run("/m")).toEqual({ prompt: "Hi" });
    expect(t.logs.filter((l) => l.level === "info")).toEqual([]);
  });
});
