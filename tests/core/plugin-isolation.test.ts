/**
 * A plugin sees only its own options. A victim plugin gets `{ apiKey: "sk-secret-…" }` from its config
 * entry, an inline plugin object carries a token of its own, and a hostile plugin (loaded from a file
 * through the real loader) dumps everything reachable from every public path it has: the `config`
 * hook's value, `ctx.config`, `ctx.host` (config, plugins, origins, providers, tools, commands, session),
 * the rest of its ctx, events, a call's result, and as a CLI command `prepare()` and `openHost()`.
 * None may show the secrets; the victim still gets its own key.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { pluginConfigView } from "../../core/host/host-view.js";
import { runCli } from "../helpers/cli.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { REPO_ROOT } from "../helpers/paths.js";
import { cleanupTemp, tempDir, tempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

// Not in tests/fixtures: these are this test's own, not faults of the catalog.
const FIXTURES = path.join(REPO_ROOT, "tests/core/isolation");
const VICTIM = path.join(FIXTURES, "options-victim.mjs");
const THIEF = path.join(FIXTURES, "options-thief.mjs");
const SECRET = "sk-secret-victim-7f3a0c";
const INLINE_SECRET = "sk-secret-inline-91c2e4";

/** What the thief wrote: path → everything it could reach there, as text. */
function loot(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const { where, text } = JSON.parse(line) as { where: string; text: string };
    out.set(where, `${out.get(where) ?? ""}${text}`);
  }
  return out;
}

function expectNoSecrets(found: Map<string, string>, paths: string[]): void {
  for (const where of paths) {
    const text = found.get(where);
    expect(text, `the thief never looked at ${where}`).toBeDefined();
    expect(text!.includes(SECRET) || text!.includes(INLINE_SECRET), `${where} shows another plugin's secret`).toBe(false);
  }
}

async function thiefHost() {
  const out = path.join(tempDir("agent-loot-"), "loot.jsonl");
  const inline = { name: "inline-victim", token: INLINE_SECRET, setup() {} };
  const t = await testHost({
    config: { plugins: [[VICTIM, { apiKey: SECRET }], [THIEF, { out }], inline as never] },
  });
  return { ...t, out };
}

describe("in the host", () => {
  test("through ctx.host (config, plugins, origins, providers, tools, commands, session), the rest of its ctx, events and a call, the thief finds nothing; the victim has its key; the owner's host.config is whole", async () => {
    const { host, out } = await thiefHost();
    expect(host.plugins.filter((p) => p.status === "loaded").map((p) => p.name)).toEqual(["options-victim", "options-thief", "inline-victim"]);
    const r = await host.tools.call("thief_look", {});
    expect(r).toMatchObject({ ok: true, output: "looked" });
    const found = loot(out);
    // It does see its own options, and the others' names.
    expect(found.get("own options")).toContain(out);
    expect(found.get("ctx.host.config")).toContain(VICTIM);
    expect(found.get("ctx.host.config")).toContain("inline-victim");
    expect(found.get("victim's tool result")).toContain("victim has its key");
    expectNoSecrets(found, [
      "ctx.host.config",
      "host.config during a call",
      "ctx.host.plugins",
      "ctx.host.configOrigins",
      "ctx.host.providers",
      "ctx.host.tools",
      "ctx.host.commands",
      "ctx.host.session",
      "ctx (everything else)",
      "victim's tool result",
      ...[...found.keys()].filter((k) => k.startsWith("event ")),
    ]);
    // The host's owner (the embedder, the CLI) still has the whole config.
    expect(JSON.stringify(host.config.plugins)).toContain(SECRET);
  });

  test("the config a plugin is shown lists plugins by name: [name, options] is name, an inline object is { name }; frozen, made once", () => {
    const inline = { name: "x", token: INLINE_SECRET, tools: [] };
    const config = Object.freeze({ model: "m", plugins: Object.freeze(["a", ["./b.mjs", { apiKey: SECRET }], inline]) }) as never;
    const view = pluginConfigView(config);
    expect(view).toEqual({ model: "m", plugins: ["a", "./b.mjs", { name: "x" }] });
    expect(Object.isFrozen(view) && Object.isFrozen((view as { plugins: unknown[] }).plugins)).toBe(true);
    expect(pluginConfigView(config)).toBe(view);
    expect(pluginConfigView(view)).toBe(view);
  });

  // ctx.config (core/host/host.ts), the config hook's value (core/plugins/plugin-driver.ts) and a plugin command's
  // prepare() (cli/main.ts) all go through pluginConfigView.
  test("ctx.config (core/host/host.ts setUp) shows no other plugin's options", async () => {
    const { host, out } = await thiefHost();
    await host.tools.call("thief_look", {});
    expectNoSecrets(loot(out), ["ctx.config"]);
  });

  test("the config hook's value (core/plugins/plugin-driver.ts) shows no other plugin's options", async () => {
    const { host, out } = await thiefHost();
    await host.tools.call("thief_look", {});
    const found = loot(out);
    expectNoSecrets(found, ["config hook"]);
    // Spreading the config it was handed back changed nothing and was not reported as a try at plugins.
    expect(host.problems.map((p) => p.message).join("\n")).not.toContain("tried to change plugins");
  });
});

describe("as a plugin's CLI command (the built CLI)", () => {
  function project() {
    const p = tempProject();
    writeFileSync(
      p.path(".agentrc.json"),
      JSON.stringify({ plugins: [[VICTIM, { apiKey: SECRET }], [THIEF, { out: p.path("setup-loot.jsonl") }]] }),
    );
    return p;
  }

  test("openHost() gives the plugin view: no other plugin's options in its config, statuses or anything else it holds; nor in prepare().plugins", async () => {
    const p = project();
    const out = p.path("cli-loot.jsonl");
    const r = await runCli(["peek", out], { cwd: p.dir, configHome: p.configHome });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("peeked");
    const found = loot(out);
    expect(found.get("cli openHost().config")).toContain(VICTIM);
    expectNoSecrets(found, ["cli openHost().config", "cli openHost().plugins", "cli openHost() everything"]);
    const steal = await runCli(["steal", p.path("steal-loot.jsonl")], { cwd: p.dir, configHome: p.configHome });
    expect(steal.code, steal.stderr).toBe(0);
    expectNoSecrets(loot(p.path("steal-loot.jsonl")), ["cli prepare().plugins"]);
  });

  // cli/main.ts hands a plugin command the app's own prepare(): it fails until that is
  // pluginPreparedView(await app.prepare()) (see the report).
  test("prepare().config shows no other plugin's options, and prepare().open() does not hand out the host", async () => {
    const p = project();
    const out = p.path("cli-loot.jsonl");
    const r = await runCli(["steal", out], { cwd: p.dir, configHome: p.configHome });
    expect(r.code, r.stderr).toBe(0);
    const found = loot(out);
    expectNoSecrets(found, ["cli prepare().config", "cli openHost().config"]);
    expect(found.get("cli prepare().open() refused")).toContain("ctx.openHost()");
  });
});
