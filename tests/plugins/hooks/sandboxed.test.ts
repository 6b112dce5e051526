/**
 * Command hooks run in the OS sandbox only when the user opts in (`sandbox.hooks: true`): then a hook
 * cannot write outside the workspace; by default it runs as before (hooks often log outside the project).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { closeHosts } from "../../helpers/host.js";
import { cleanupTemp } from "../../helpers/project.js";
import { noSandboxTest, sandboxHere } from "../../helpers/sandbox.js";
import { hook, hooksHost } from "./helpers.js";

const here = await sandboxHere();
// Outside /tmp: the sandbox's /tmp is its own, which would hide a write there for the wrong reason.
const outside = mkdtempSync(path.join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), "agent-hook-sbx-"));
afterAll(async () => {
  await closeHosts();
  rmSync(outside, { recursive: true, force: true });
  cleanupTemp();
});

if (here.kind === "bwrap") describe("sandbox.hooks", () => {
  const writeOutside = (name: string) => hook("PreToolUse", `touch ${path.join(outside, name)}; touch in-project-${name}`, {}, "run_command");

  test("true: the hook runs sandboxed, writing only the workspace", async () => {
    const { host, project } = await hooksHost({ hooks: writeOutside("boxed"), sandbox: { hooks: true } }, { permissionMode: "bypass" });
    const r = await host.tools.call("run_command", { command: "echo hi" });
    expect(r.ok, r.output).toBe(true);
    expect(existsSync(project.path("in-project-boxed"))).toBe(true);
    expect(existsSync(path.join(outside, "boxed"))).toBe(false);
  });

  test("default: the hook runs as before", async () => {
    const { host, project } = await hooksHost({ hooks: writeOutside("free") }, { permissionMode: "bypass" });
    const r = await host.tools.call("run_command", { command: "echo hi" });
    expect(r.ok, r.output).toBe(true);
    expect(existsSync(project.path("in-project-free"))).toBe(true);
    expect(existsSync(path.join(outside, "free"))).toBe(true);
  });
});

if (here.kind !== "bwrap") noSandboxTest(here);
