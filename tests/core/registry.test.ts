/** The registration gate: every rejection is reported (plugin, name, reason) and audited; the rest still loads. */
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import { z, type ModelProvider, type ToolDefinition } from "../../core/index.js";
import { findOverride, skillEntry, toolRegistry } from "../../core/registry/registry.js";
import { skillBody } from "../../kit/index.js";
import { checkCommand, checkProvider, checkSkill, checkTool } from "../../core/registry/registry-checks.js";

/** The whole registration of one tool: the check, then the entry (or why it was refused). */
const makeToolEntry = (def: ToolDefinition, plugin: string, _override: undefined) => toolRegistry(() => undefined).add(plugin, def);
import { closeHosts, testHost } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const good = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `tool ${name}`,
  input: z.object({ x: z.string().optional() }),
  risk: "read",
  run: () => "ok",
  ...extra,
});

/** [case, definition, expected words in the reason] */
const BAD_TOOLS: [string, unknown, RegExp][] = [
  ["bad name (space)", good("bad name"), /invalid tool name "bad name": must match \^\[a-zA-Z0-9_-\]\{1,64\}\$/],
  ["bad name (dot)", good("read.file"), /invalid tool name "read.file"/],
  ["name too long", good("a".repeat(65)), /invalid tool name/],
  ["empty name", good(""), /invalid tool name ""/],
  ["missing description", { ...good("no_desc"), description: undefined }, /missing description/],
  ["blank description", good("blank_desc", { description: "   " }), /missing description/],
  ["missing schema", { ...good("no_schema"), input: undefined }, /missing input schema/],
  ["both schemas", good("both", { inputSchema: { type: "object" } }), /either input \(zod\) or inputSchema \(JSON Schema\), not both/],
  ["non-object JSON schema", { ...good("json_string"), input: undefined, inputSchema: { type: "string" } }, /inputSchema must have type "object", got "string"/],
  ["JSON schema that is an array", { ...good("json_array"), input: undefined, inputSchema: [] }, /inputSchema must be a JSON Schema object, got an array/],
  ["non-object zod schema", good("zod_string", { input: z.string() as never }), /input must be a z.object\(\.\.\.\), got a schema of type "string"/],
  ["input that is not zod", good("not_zod", { input: { parse: () => ({}) } as never }), /input must be a zod schema/],
  ["invalid risk", good("risky", { risk: "dangerous" as never }), /invalid risk "dangerous": expected one of read, write, execute, network/],
  ["missing run", { ...good("no_run"), run: undefined }, /missing run function/],
  ["bad timeout", good("bad_timeout", { timeoutMs: -1 }), /timeoutMs must be a positive number/],
  ["bad output cap", good("bad_cap", { maxOutputBytes: Number.NaN }), /maxOutputBytes must be a positive number/],
  ["not an object", "read_file", /expected a tool definition object, got string/],
];

/** No tool held yet. */
const NONE = { get: () => undefined, aliasOf: () => undefined };

describe("tool registration gate (unit)", () => {
  test.each(BAD_TOOLS)("rejects %s", (_case, def, reason) => {
    const r = checkTool(def, NONE) ?? (makeToolEntry(def as ToolDefinition, "p", undefined) as { reason?: string });
    expect(r && "reason" in r ? r.reason : undefined).toMatch(reason);
  });

  test("accepts a zod tool and a JSON Schema tool; risk defaults to execute", () => {
    expect(checkTool(good("ok_zod"), NONE)).toBeUndefined();
    const json: ToolDefinition = { name: "ok_json", description: "d", inputSchema: { type: "object", properties: {} }, run: () => "" };
    expect(checkTool(json, NONE)).toBeUndefined();
    const entry = makeToolEntry(json, "p", undefined);
    expect(entry).toMatchObject({ name: "ok_json", risk: "execute", source: "p", plugin: "p", zod: false });
  });

  test("a zod tool's input schema is exposed as an object JSON Schema", () => {
    const entry = makeToolEntry(good("z", { input: z.object({ path: z.string().describe("file path"), n: z.number().optional() }) }), "p", undefined);
    expect(entry).toMatchObject({
      view: { inputSchema: { type: "object", properties: { path: { type: "string", description: "file path" }, n: { type: "number" } }, required: ["path"] } },
    });
    expect((entry as { view: { inputSchema: Record<string, unknown> } }).view.inputSchema.$schema).toBeUndefined();
  });

  test("names of exactly 64 characters and with - and _ are fine", () => {
    expect(checkTool(good("a".repeat(64)), NONE)).toBeUndefined();
    expect(checkTool(good("mcp__git-hub__list_issues"), NONE)).toBeUndefined();
  });

  test("a name or alias means one tool: a tool named like another's alias, or an alias taken, is refused", () => {
    const reg = toolRegistry(() => undefined);
    expect(reg.add("tools", good("run_command", { aliases: ["Bash"] }))).toHaveProperty("view");
    const named = reg.add("hostile", good("Bash"));
    expect(named).toEqual({ name: "Bash", reason: "tool name is an alias of a tool registered by tools" });
    expect(reg.add("hostile", good("shell", { aliases: ["Bash"] }))).toEqual({ name: "shell", reason: 'alias "Bash" already names a tool registered by tools' });
    expect(reg.add("hostile", good("shell2", { aliases: ["run_command"] }))).toEqual({ name: "shell2", reason: 'alias "run_command" already names a tool registered by tools' });
    expect(reg.add("other", good("reader", { aliases: ["Read", "reader"] }))).toHaveProperty("view");
    expect(reg.get("Bash")).toBeUndefined();
  });

  test("an alias is free again once its tool is removed, and only then", () => {
    const reg = toolRegistry(() => undefined);
    reg.add("tools", good("run_command", { aliases: ["Bash"] }));
    expect(reg.remove("hostile", "run_command")).toBe(false);
    expect(reg.add("other", good("Bash"))).toEqual({ name: "Bash", reason: "tool name is an alias of a tool registered by tools" });
    expect(reg.remove("tools", "run_command")).toBe(true);
    expect(reg.add("other", good("Bash"))).toHaveProperty("view");
    reg.add("p", good("lister", { aliases: ["ls"] }));
    reg.removeAll("p");
    expect(reg.add("q", good("ls"))).toHaveProperty("view");
  });

  test("config overrides: globs merge, and the exact name's fields win over them", () => {
    const overrides = { "mcp__github__*": { timeoutMs: 5, risk: "network" as const }, mcp__github__search: { timeoutMs: 9 }, "*": { maxOutputBytes: 10 } };
    expect(findOverride(overrides, "mcp__github__search")).toEqual({ timeoutMs: 9, risk: "network", maxOutputBytes: 10 });
    expect(findOverride(overrides, "mcp__github__issues")).toEqual({ timeoutMs: 5, risk: "network", maxOutputBytes: 10 });
    expect(findOverride(overrides, "read_file")).toEqual({ maxOutputBytes: 10 });
    expect(findOverride(undefined, "x")).toBeUndefined();
    expect(findOverride({ toString: { timeoutMs: 1 } }, "constructor")).toBeUndefined();
  });

  test("commands, skills and providers have their own rules", () => {
    const cmd = { name: "review:pr", description: "review", run: () => "" };
    expect(checkCommand(cmd, NONE)).toBeUndefined();
    expect(checkCommand({ ...cmd, name: "has space" }, NONE)?.reason).toMatch(/invalid command name/);
    expect(checkCommand({ ...cmd, description: "" }, NONE)?.reason).toMatch(/missing description/);
    const skill = { name: "pdf-forms", description: "fill PDF forms", content: "# x" };
    expect(checkSkill(skill, NONE)).toBeUndefined();
    expect(checkSkill({ ...skill, name: "PDF_Forms" }, NONE)?.reason).toMatch(/invalid skill name/);
    expect(checkSkill({ ...skill, name: "a--b" }, NONE)?.reason).toMatch(/invalid skill name/);
    expect(checkSkill({ ...skill, name: "a".repeat(65) }, NONE)?.reason).toMatch(/invalid skill name/);
    expect(checkSkill({ ...skill, description: "x".repeat(1025) }, NONE)?.reason).toMatch(/at most 1024/);
    expect(checkSkill({ ...skill, content: undefined }, NONE)?.reason).toMatch(/missing content/);
    expect(checkSkill({ ...skill, content: 42 }, NONE)?.reason).toMatch(/missing content/);
    expect(checkSkill({ ...skill, content: () => Promise.resolve("# x") }, NONE)).toBeUndefined();
    const provider = { name: "fake", stream: async function* () {} } as unknown as ModelProvider;
    expect(checkProvider(provider, NONE)).toBeUndefined();
    expect(checkProvider({ ...provider, name: "Fake Provider" }, NONE)?.reason).toMatch(/invalid provider name/);
    expect(checkProvider({ name: "nostream" }, NONE)?.reason).toMatch(/missing stream/);
    expect(checkProvider(provider, { get: (n: string) => (n === "fake" ? { source: "p" } : undefined), aliasOf: () => undefined })?.reason).toMatch(/duplicate provider name: already registered by p/);
  });
});

describe("tool registration gate (through the host)", () => {
  test("every rejection is reported with plugin, name and reason, audited, and the other tools still load", async () => {
    const defs = BAD_TOOLS.map(([, def]) => def) as ToolDefinition[];
    const { host, audit } = await testHost({
      config: {
        plugins: [
          { name: "first", tools: [good("shared")] },
          { name: "messy", tools: [good("ok_before"), ...defs, good("shared"), good("ok_after")] },
          { name: "other", tools: [good("ok_other")] },
        ],
      },
    });
    expect(host.tools.list().map((t) => t.name).sort()).toEqual(["ok_after", "ok_before", "ok_other", "shared"]);
    expect(host.tools.get("shared")?.plugin).toBe("first");
    const rejected = host.problems.filter((p) => p.kind === "register");
    expect(rejected).toHaveLength(BAD_TOOLS.length + 1);
    for (const [i, [, def, reason]] of BAD_TOOLS.entries()) {
      const name = typeof def === "object" && def && typeof (def as ToolDefinition).name === "string" ? (def as ToolDefinition).name : "(unnamed)";
      const p = rejected[i];
      expect(p.plugin).toBe("messy");
      expect(p.name).toBe(name);
      expect(p.message).toMatch(`Plugin messy: tool "${name}" rejected: `);
      expect(p.message).toMatch(reason);
    }
    const dup = rejected.at(-1)!;
    expect(dup).toMatchObject({ plugin: "messy", name: "shared" });
    expect(dup.message).toContain("duplicate tool name: already registered by first");

    const records = audit().filter((r) => r.kind === "register" && r.outcome === "rejected");
    expect(records).toHaveLength(BAD_TOOLS.length + 1);
    expect(records.every((r) => r.source === "messy" && typeof r.error === "string" && r.error.includes("rejected"))).toBe(true);
    expect(records.map((r) => r.name)).toContain("read.file");
    expect(host.plugins.find((p) => p.name === "messy")).toMatchObject({ status: "loaded", tools: 2 });
    expect(host.plugins.find((p) => p.name === "other")).toMatchObject({ status: "loaded", tools: 1 });
  });

  test("the registrar's add returns false for a rejection and true otherwise", async () => {
    const results: boolean[] = [];
    await testHost({
      config: {
        plugins: [
          {
            name: "p",
            registerTools(r) {
              results.push(r.add(good("one")), r.add(good("one")), r.add(good("bad name")));
            },
          },
        ],
      },
    });
    expect(results).toEqual([true, false, false]);
  });

  test("a duplicate across plugins names the first owner's source (e.g. an MCP server)", async () => {
    const { host } = await testHost({
      config: { plugins: [{ name: "mcp", tools: [good("search", { source: "mcp:github" })] }, { name: "late", tools: [good("search")] }] },
    });
    expect(host.problems[0].message).toBe('Plugin late: tool "search" rejected: duplicate tool name: already registered by mcp:github');
  });

  test("a plugin that throws in setup fails alone: reported, audited, its early registrations removed", async () => {
    const { host, audit } = await testHost({
      config: {
        plugins: [
          {
            name: "crashy",
            setup(ctx) {
              ctx.tools.add(good("crashy_tool"));
              throw new Error("setup exploded");
            },
            tools: [good("declared_tool")],
          },
          { name: "fine", tools: [good("fine_tool")] },
        ],
      },
    });
    expect(host.tools.list().map((t) => t.name)).toEqual(["fine_tool"]);
    expect(host.plugins.find((p) => p.name === "crashy")).toMatchObject({ status: "failed", error: "setup exploded", tools: 0 });
    expect(host.problems).toContainEqual({
      kind: "plugin",
      plugin: "crashy",
      message: "Plugin crashy failed in setup: setup exploded. Continuing without it.",
    });
    expect(audit().find((r) => r.kind === "plugin" && r.source === "crashy")).toMatchObject({ outcome: "failed", error: expect.stringContaining("setup exploded") });
  });

  test("a failed plugin's hooks tapped during setup never run, and its registrar refuses later adds", async () => {
    const seen: string[] = [];
    let add: ((d: ToolDefinition) => boolean) | undefined;
    const { host } = await testHost({
      config: {
        plugins: [
          {
            name: "half",
            setup(ctx) {
              add = ctx.tools.add;
              ctx.hooks.registerTools.tap("half", () => void seen.push("registerTools"));
              ctx.hooks.event.tap("half", () => void seen.push("event"));
              throw new Error("nope");
            },
          },
        ],
      },
    });
    host.emit({ type: "notice", level: "info", source: "t", message: "m" });
    expect(seen).toEqual([]);
    expect(add!(good("sneaky"))).toBe(false);
    expect(host.tools.get("sneaky")).toBeUndefined();
  });

  test("two plugins with the same name: the second is skipped and reported", async () => {
    const { host } = await testHost({ config: { plugins: [{ name: "twin", tools: [good("a")] }, { name: "twin", tools: [good("b")] }] } });
    expect(host.tools.list().map((t) => t.name)).toEqual(["a"]);
    expect(host.plugins.map((p) => p.status)).toEqual(["loaded", "failed"]);
    expect(host.problems[0].message).toMatch(/Plugin twin \(inline:twin\) skipped: a plugin with this name is already loaded/);
  });

  test("commands, skills and providers are gated the same way", async () => {
    const provider = { name: "fake", stream: async function* () {} } as unknown as ModelProvider;
    const { host, audit } = await testHost({
      config: {
        plugins: [
          {
            name: "mixed",
            commands: [
              { name: "ok", description: "fine", run: () => "" },
              { name: "ok", description: "again", run: () => "" },
            ],
            skills: [
              { name: "good-skill", description: "d", content: "c" },
              { name: "Bad Skill", description: "d", content: "c" },
            ],
            providers: [provider, { name: "nostream" } as never],
          },
        ],
      },
    });
    expect(host.commands.list().map((c) => c.name)).toEqual(["ok"]);
    expect(host.skills.list().map((s) => s.name)).toEqual(["good-skill"]);
    expect(host.providers.list().map((p) => p.name)).toEqual(["fake"]);
    expect(host.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^Plugin mixed: provider "nostream" rejected: missing stream function/),
      expect.stringMatching(/^Plugin mixed: command "ok" rejected: duplicate command name/),
      expect.stringMatching(/^Plugin mixed: skill "Bad Skill" rejected: invalid skill name/),
    ]);
    expect(audit().filter((r) => r.outcome === "rejected")).toHaveLength(3);
  });

  test("per-tool config overrides (exact and glob) are applied at registration", async () => {
    const { host } = await testHost({
      config: {
        tools: { overrides: { "net_*": { risk: "network", timeoutMs: 1234 }, net_exact: { maxOutputBytes: 99 } } },
        plugins: [{ name: "p", tools: [good("net_fetch"), good("net_exact"), good("plain", { timeoutMs: 50 })] }],
      },
    });
    expect(host.tools.get("net_fetch")).toMatchObject({ risk: "network", timeoutMs: 1234 });
    expect(host.tools.get("net_exact")).toMatchObject({ risk: "network", timeoutMs: 1234, maxOutputBytes: 99 });
    expect(host.tools.get("plain")).toMatchObject({ timeoutMs: 50 });
  });
});

describe("a skill loaded on use", () => {
  test("its view keeps the function, called only when the body is read, on every read", async () => {
    let calls = 0;
    const lazy = skillEntry({ name: "remote", description: "d", content: async () => `body ${++calls}` }, "p").view;
    expect(typeof lazy.content).toBe("function");
    expect(calls).toBe(0);
    expect(await skillBody(lazy)).toBe("body 1");
    expect(await skillBody(lazy)).toBe("body 2");
    expect(await skillBody(skillEntry({ name: "local", description: "d", content: "# here" }, "p").view)).toBe("# here");
  });

  test("a failing or wrong loader is the read's error, with its own message", async () => {
    const failing = skillEntry({ name: "remote", description: "d", content: () => Promise.reject(new Error("server x: digest differs")) }, "p").view;
    await expect(skillBody(failing)).rejects.toThrow("server x: digest differs");
    const wrong = skillEntry({ name: "odd", description: "d", content: (() => Promise.resolve(7)) as unknown as () => Promise<string> }, "p").view;
    await expect(skillBody(wrong)).rejects.toThrow("skill odd: its content function gave number, not the Markdown body");
  });
});
