/** Per-tap ordering: a tap's `stage` is added to its plugin's `enforce` stage, `before` names plugins. */
import { afterAll, afterEach, describe, expect, test } from "vitest";
import type { Plugin, TapOptions } from "../../core/index.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

function tapper(log: string[], name: string, options: { enforce?: "pre" | "post"; tap: string | TapOptions | { before: unknown } }): Plugin {
  return {
    name,
    enforce: options.enforce,
    setup(ctx) {
      ctx.hooks.registerTools.tap(options.tap as string | TapOptions, () => void log.push(name));
    },
  };
}

describe("tap ordering", () => {
  test("a stage moves one tap among the others, across enforce", async () => {
    const log: string[] = [];
    await testHost({
      config: {
        plugins: [
          tapper(log, "early", { enforce: "pre", tap: "x" }),
          tapper(log, "plain", { tap: "x" }),
          // post (100) - 1000: ahead of every pre (-100) tap
          tapper(log, "first", { enforce: "post", tap: { name: "x", stage: -1000 } }),
          tapper(log, "late", { tap: { stage: 50 } }),
        ],
      },
    });
    expect(log).toEqual(["first", "early", "plain", "late"]);
  });

  test("before names the plugins whose taps it goes ahead of", async () => {
    const log: string[] = [];
    await testHost({
      config: { plugins: [tapper(log, "a", { tap: "x" }), tapper(log, "b", { tap: "x" }), tapper(log, "c", { tap: { before: ["b"] } })] },
    });
    expect(log).toEqual(["a", "c", "b"]);
  });

  test("a bad stage or before fails that plugin's setup with a clear message; the others still run", async () => {
    const log: string[] = [];
    const { host } = await testHost({
      config: { plugins: [tapper(log, "nan", { tap: { stage: Number.NaN } }), tapper(log, "list", { tap: { before: [1] } }), tapper(log, "ok", { tap: "x" })] },
    });
    expect(log).toEqual(["ok"]);
    const messages = host.problems.map((p) => p.message).join("\n");
    expect(messages).toContain("tap option stage must be a finite number");
    expect(messages).toContain("tap option before must be a plugin name or a list of plugin names");
  });
});
