/** Through the built CLI (`npm run build` first): listed by `agent commands`, sent to the model by `agent run`. */
import { afterAll, afterEach, expect, test } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { cleanupTemp, tempDir, tempProject } from "../../helpers/project.js";
import { startFake, type FakeServer } from "../../core/loop-helpers.js";
import { md } from "./_helpers.js";

let srv: FakeServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});
afterAll(() => cleanupTemp());

const REVIEW = md("Review $ARGUMENTS: !`echo checked`", { description: "Review a file", "argument-hint": "<file>" });

test("agent commands --json lists a project command with its source and argumentHint", async () => {
  const p = tempProject({ ".claude/commands/review.md": REVIEW, ".agent/commands/git/commit.md": md("Commit") });
  const r = await runCli(["commands", "--json"], { cwd: p.dir, configHome: p.configHome, env: { HOME: tempDir("agent-home-") } });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const list = JSON.parse(r.stdout) as Record<string, unknown>[];
  expect(list).toContainEqual({ name: "review", description: "Review a file", argumentHint: "<file>", source: "project:.claude/commands", plugin: "markdown-commands" });
  expect(list).toContainEqual({ name: "git:commit", description: "Commit", source: "project:.agent/commands", plugin: "markdown-commands" });
});

test("agent run -p /review sends the expanded prompt to the model", async () => {
  srv = await startFake("openai", [{ text: "Looks good." }]);
  const p = tempProject({
    ".claude/commands/review.md": REVIEW,
    ".agentrc.json": {
      model: "openai:gpt-fake",
      providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } },
      permissions: { allow: ["run_command(echo:*)"] },
    },
  });
  const r = await runCli(["run", "-p", '/review "src/a b.ts"'], { cwd: p.dir, configHome: p.configHome, env: { HOME: tempDir("agent-home-") } });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Looks good.");
  const messages = srv.requests[0].body.messages as { role: string; content: string }[];
  expect(messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(['Review "src/a b.ts": checked']);
});
