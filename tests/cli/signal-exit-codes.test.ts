/**
 * Signals end the built CLI with the shell's code, 128 + the signal number (issue 20: SIGHUP gave 143):
 * SIGHUP 129, SIGINT 130, SIGTERM 143, each sent while a model request is in flight. Needs `npm run build`.
 */
import { afterEach, beforeAll, expect, test } from "vitest";
import { startFake, type FakeServer, type Turn } from "../core/loop-helpers.js";
import { assertBuilt, cleanEnv, makeProject, spawnCli, type Project } from "./run-helpers.js";

beforeAll(assertBuilt);

let srv: FakeServer | undefined;
let project: Project | undefined;
afterEach(async () => {
  await srv?.close();
  await project?.remove();
  srv = project = undefined;
});

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
  srv = await startFake("openai", [slow]);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  const run = spawnCli(["run", "-p", "wait", "--output-format", "stream-json"], { cwd: project.dir, env: cleanEnv({}, project.dir) });
  await inFlight;
  run.child.kill(sig);
  const r = await run.done;
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).not.toContain("too late");
});
