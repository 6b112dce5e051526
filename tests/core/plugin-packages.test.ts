/**
 * What core offers plugin packages that are not npm modules (a Claude Code plugin folder, say): a
 * package format the embedder supplies claims folder entries and names installed folders; a plugin's
 * `commandDirs` are listed absolute like `skillDirs`; a plugin's `sections` entries reach the section's
 * owner, checked by its schema, and a bad one is reported and left out.
 */
import path from "node:path";
import { afterAll, afterEach, expect, test } from "vitest";
import { z, type Plugin, type PluginPackageFormat } from "../../core/index.js";
import { closeHosts, testHost } from "../helpers/host.js";
import { cleanupTemp, tempProject } from "../helpers/project.js";

afterEach(closeHosts);
afterAll(cleanupTemp);

const format = (calls: string[]): PluginPackageFormat => ({
  name: "marker",
  claims: (dir) => path.basename(dir).startsWith("pkg-"),
  async load(dir) {
    calls.push(dir);
    if (dir.endsWith("broken")) throw new Error("its files changed since install");
    return { name: path.basename(dir), version: "1.2.3", commandDirs: ["commands"], skillDirs: ["skills"] };
  },
  installed: async () => [path.resolve("/nonexistent-but-absolute/pkg-installed")],
});

test("a claimed folder entry loads through its format, with its folders absolute; a failing one is reported", async () => {
  const project = tempProject({ "pkg-one/README.md": "x", "pkg-broken/README.md": "x" });
  const calls: string[] = [];
  const { host } = await testHost({ project, plugins: ["./pkg-one", "./pkg-broken"], packageFormats: [format(calls)] });
  const one = host.plugins.find((p) => p.name === "pkg-one")!;
  expect(one).toMatchObject({ status: "loaded", version: "1.2.3", dir: project.path("pkg-one") });
  expect(one.commandDirs).toEqual([project.path("pkg-one/commands")]);
  expect(one.skillDirs).toEqual([project.path("pkg-one/skills")]);
  const broken = host.plugins.find((p) => p.from.endsWith("pkg-broken"))!;
  expect(broken.status).toBe("failed");
  expect(broken.error).toContain("changed since install");
  // installed() named a folder that does not exist: it fails to load, said so, nothing else breaks.
  expect(host.plugins.find((p) => p.from.endsWith("pkg-installed"))?.status).toBe("failed");
  expect(calls).toContain(project.path("pkg-one"));
});

test("a plugin's section entries reach the owner's section; entries the owner refuses are reported", async () => {
  const owner: Plugin = { name: "owner", configSections: { things: { schema: z.record(z.string(), z.object({ n: z.number() })), merge: "entries" } } };
  const seen: unknown[] = [];
  const reader: Plugin = { name: "reader", setup: (ctx) => void seen.push(ctx.config.things) };
  const good: Plugin = { name: "good", sections: { things: { a: { n: 1 } } } };
  const bad: Plugin = { name: "bad", sections: { things: { b: { n: "no" } }, nobody: {} } };
  const { host } = await testHost({ plugins: [owner, reader, good, bad], config: { things: { c: { n: 3 } } } as never });
  expect(seen).toEqual([{ c: { n: 3 }, a: { n: 1 } }]);
  const messages = host.problems.map((p) => p.message);
  expect(messages.some((m) => m.includes('Plugin bad: its "things" entries were left out: b.n'))).toBe(true);
  expect(messages.some((m) => m.includes('Plugin bad: its "nobody" entries were left out: no loaded plugin owns that key'))).toBe(true);
});
