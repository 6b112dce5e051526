/**
 * `ctx.askUser` / `ctx.canAskUser`: a plugin's one-line question goes to the host's asker as an
 * `input` request and resolves with the text typed; with no asker (headless) it resolves null at once,
 * and a cancelled question (a deny answer) or a failing asker is null too.
 */
import { afterEach, expect, test } from "vitest";
import type { PermissionAsker, PluginContext } from "../../core/index.js";
import { closeHosts, testHost } from "../helpers/host.js";

afterEach(closeHosts);

function asking() {
  let ctx: PluginContext | undefined;
  return { plugin: { name: "asker-test", setup: (c: PluginContext) => void (ctx = c) }, ctx: () => ctx! };
}

test("the question reaches the asker as an input request; the text typed comes back", async () => {
  const seen: unknown[] = [];
  const askPermission: PermissionAsker = async (req) => (seen.push(req), req.kind === "input" ? { decision: "answer", text: "blue" } : "deny");
  const p = asking();
  await testHost({ builtins: [], plugins: [p.plugin], askPermission });
  expect(p.ctx().canAskUser()).toBe(true);
  expect(await p.ctx().askUser("Colour?\n> ")).toBe("blue");
  expect(seen).toEqual([{ kind: "input", plugin: "asker-test", question: "Colour?\n> " }]);
});

test("headless: nobody to ask, null at once; a cancelled question or a failing asker: null", async () => {
  const headless = asking();
  await testHost({ builtins: [], plugins: [headless.plugin] });
  expect(headless.ctx().canAskUser()).toBe(false);
  expect(await headless.ctx().askUser("Colour?")).toBeNull();

  const cancelled = asking();
  await testHost({ builtins: [], plugins: [cancelled.plugin], askPermission: async () => "deny" });
  expect(await cancelled.ctx().askUser("Colour?")).toBeNull();

  const failing = asking();
  await testHost({ builtins: [], plugins: [failing.plugin], askPermission: async () => { throw new Error("no tty"); } });
  expect(await failing.ctx().askUser("Colour?")).toBeNull();
});
