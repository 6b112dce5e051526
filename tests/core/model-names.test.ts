/**
 * The model names agent-host suggests are current: every built-in alias and every `claude-*` / `gpt-*`
 * name in the docs, examples and non-test sources is one the bundled SDKs list (`@anthropic-ai/sdk`'s
 * `Model`, `openai`'s `ChatModel`), and none is one the Anthropic SDK warns about as deprecated.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUILTIN_MODEL_ALIASES } from "../../cli/builtins.js";
import { REPO } from "./loop-helpers.js";

const read = (rel: string) => readFileSync(path.join(REPO, rel), "utf8");
const union = (src: string, type: string) => [...(new RegExp(`export type ${type} = ([^;]+);`).exec(src)?.[1] ?? "").matchAll(/'([^']+)'/g)].map((m) => m[1]);

const anthropic = new Set(union(read("node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts"), "Model"));
const openai = new Set(union(read("node_modules/openai/resources/shared.d.ts"), "ChatModel"));
const deprecated = new Set([...read("node_modules/@anthropic-ai/sdk/internal/data/deprecated-models.js").matchAll(/'([^']+)':/g)].map((m) => m[1]));

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(path.join(REPO, dir))) {
    const rel = path.join(dir, name);
    if (["node_modules", "dist", ".git"].includes(name)) continue;
    if (statSync(path.join(REPO, rel)).isDirectory()) files(rel, out);
    else if (/\.(ts|md|json|mjs)$/.test(name)) out.push(rel);
  }
  return out;
}

describe("model names", () => {
  it("the SDK lists were found", () => {
    expect(anthropic.size).toBeGreaterThan(5);
    expect(openai.size).toBeGreaterThan(5);
    expect(deprecated.has("claude-sonnet-4-5")).toBe(true);
  });

  it.each(Object.entries(BUILTIN_MODEL_ALIASES))("alias %s → %s is listed by its SDK and not deprecated", (_alias, ref) => {
    const [provider, model] = ref.split(":");
    expect((provider === "anthropic" ? anthropic : openai).has(model)).toBe(true);
    expect(deprecated.has(model)).toBe(false);
  });

  it("README, docs, examples and sources name only current models", () => {
    const sources = ["README.md", ...["docs", "examples", "core", "cli", "commands", "plugins", "templates", "skills"].flatMap((d) => files(d))];
    const stale: string[] = [];
    for (const rel of sources) {
      for (const m of read(rel).matchAll(/\b(anthropic|openai):((?:claude|gpt)-[\w.-]*\w)/g)) {
        const model = m[2];
        const known = m[1] === "anthropic" ? anthropic.has(model) : openai.has(model);
        if (!known || deprecated.has(model)) stale.push(`${rel}: ${m[0]}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
