/** `agent config [--json]`: the resolved config (secrets redacted) and the files it came from. */
import path from "node:path";
import { type ConfigOrigin } from "../../core/embed.js";
import { REDACTED, isSecretKey, redactString } from "../../kit/index.js";
import { trustLines, trustState } from "../trust-text.js";
import { defineAppCommand } from "./_define.js";

function redactDeep(v: unknown, depth = 0): unknown {
  // Configs are checked for depth when read; a plugin's config hook could still hand back something odd.
  if (depth > 100) return "[nested too deep]";
  if (Array.isArray(v)) return v.map((x) => redactDeep(x, depth + 1));
  if (v && typeof v === "object") {
    if (typeof (v as { name?: unknown }).name === "string" && Object.values(v).some((x) => typeof x === "function")) {
      return `[inline plugin ${(v as { name: string }).name}]`;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, isSecretKey(k) && typeof x === "string" && x ? REDACTED : redactDeep(x, depth + 1)]));
  }
  // Values, too: a declared secret or a key-shaped string shows as [REDACTED] under any key.
  return typeof v === "string" ? redactString(v) : v;
}

/** One row per origin: the key, the value (a rule as merged), the file (relative to the project), and how it was read. */
function originTable(origins: readonly ConfigOrigin[], root: string, table: (rows: string[][], header: string[]) => string): string {
  const rel = (f: string) => (f.startsWith(root + path.sep) ? path.relative(root, f) : f);
  const rows = origins.map((o) => [o.key, o.value ?? "", rel(o.file), [o.written && o.written !== o.value ? `written ${o.written}` : "", o.note ?? ""].filter(Boolean).join("; ")]);
  return table(rows, ["KEY", "VALUE", "FILE", "NOTE"]);
}

export default defineAppCommand({
  name: "config",
  description: "show the resolved config and the files it came from [--json]",
  usage: "[--json]",
  details: "The config after every file is merged and the plugins' config hooks ran (nothing is started).",
  options: { json: { type: "boolean", description: "print { files, projectRoot, config } as JSON" } },
  positionals: false,
  async run(ctx) {
    const prepared = await ctx.prepare();
    for (const p of prepared.problems) ctx.warn(`agent: ${p.message}`);
    const config = redactDeep(prepared.config);
    const origins = prepared.configOrigins.map((o) => redactDeep(o) as typeof o);
    if (ctx.values.json) {
      ctx.printJson({ files: prepared.configFiles, projectRoot: prepared.projectRoot, config, origins, trust: { state: prepared.trust.state, notLoaded: prepared.trust.skipped } });
      return 0;
    }
    const files = prepared.configFiles;
    ctx.print(
      `Project root: ${prepared.projectRoot}\n` +
        `Config files (merged in this order):${files.length ? "\n" + files.map((f) => `  ${f}`).join("\n") : " none (defaults)"}\n\n` +
        `${JSON.stringify(config, null, 2)}` +
        (origins.length ? `\n\nWhere each part came from (later files win; rule lists add up):\n${originTable(origins, prepared.projectRoot, ctx.table)}` : "") +
        (prepared.trust.skipped.length ? `\n\nNot loaded (${trustState(prepared.trust)}; agent trust loads them):\n${trustLines(prepared.trust.skipped, prepared.projectRoot).join("\n")}` : ""),
    );
    return 0;
  },
});
