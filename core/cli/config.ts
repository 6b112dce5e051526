/** `agent config [--json]`: the resolved config (secrets redacted) and the files it came from. */
import { loadConfig } from "../config.js";
import { REDACTED, isSecretKey } from "../redact.js";
import type { CliContext } from "./context.js";
import { printJson } from "./format.js";
import { parseSubArgs } from "./main.js";

function redactDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redactDeep);
  if (v && typeof v === "object") {
    if (typeof (v as { name?: unknown }).name === "string" && Object.values(v).some((x) => typeof x === "function")) {
      return `[inline plugin ${(v as { name: string }).name}]`;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, isSecretKey(k) && typeof x === "string" && x ? REDACTED : redactDeep(x)]));
  }
  return v;
}

export async function run(args: string[], ctx: CliContext): Promise<number> {
  const parsed = parseSubArgs(args, { json: { type: "boolean" } }, "Usage: agent config [--json]", false);
  if (!parsed) return 0;
  const loaded = await loadConfig({ cwd: ctx.cwd });
  const config = redactDeep(loaded.config);
  if (parsed.values.json) {
    printJson({ files: loaded.files, projectRoot: loaded.projectRoot, config });
    return 0;
  }
  process.stdout.write(
    `Project root: ${loaded.projectRoot}\n` +
      `Config files (merged in this order):${loaded.files.length ? "\n" + loaded.files.map((f) => `  ${f}`).join("\n") : " none (defaults)"}\n\n` +
      `${JSON.stringify(config, null, 2)}\n`,
  );
  return 0;
}
