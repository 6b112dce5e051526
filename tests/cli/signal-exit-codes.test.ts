/**
 * Signals end the built CLI with the shell's code, 128 + the signal number (issue 20: SIGHUP gave 143):
 * SIGHUP 129, SIGINT 130, SIGTERM 143, each sent while a model request is in flight. Needs `npm run build`.
 */
import { beforeAll, expect, test } from "vitest";
import type { Turn } from "../core/loop-helpers.js";
import { assertBuilt, cleanEnv, fakeOpenAiProject, spawnCli } from "./run-helpers.js";

beforeAll(assertBuilt);


test.each([
  ["SIGHUP", 129],
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const)("%s during a run exits %i", { timeout: 60_000 }, async (sig, code) => {
  let reached: () => void = () => {};
  const inFlight = new Promise<void>((r) => (reached = r));
  // The answer would come after a minute: the signal arrives while the request is in flight.
  const slow = (() => {
    reached();
    return { text: "too late", delayMs: 60_000 };
  }) as unknown as Turn;
  const { project } = await fakeOpenAiProject([slow], { model: "openai:gpt-fake" });
  const run = spawnCli(["run", "-p", "wait", "--output-format", "stream-json"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
  await inFlight;
  run.child.kill(sig);
  const r = await run.done;
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).not.toContain("too late");
});
