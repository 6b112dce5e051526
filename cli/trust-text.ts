/** How the CLI words a folder's trust: the one line a run prints, the list a question or `agent doctor` shows. */
import path from "node:path";
import { type TrustItem, type TrustReport } from "../core/embed.js";
import { redactString } from "../kit/index.js";

/** `3 allow rules (Bash, write_file, …)`: one group per kind, in the order first seen. */
function groups(items: readonly TrustItem[]): string[] {
  const byKind = new Map<string, string[]>();
  for (const i of items) byKind.set(i.kind, [...(byKind.get(i.kind) ?? []), i.name]);
  return [...byKind].map(([kind, names]) => {
    const shown = names.slice(0, 3).join(", ") + (names.length > 3 ? ", …" : "");
    return names.length === 1 ? `${kind} ${shown}` : `${names.length} ${plural(kind)} (${shown})`;
  });
}

function plural(kind: string): string {
  if (/(s|settings|hooks)$/.test(kind)) return kind;
  return kind.endsWith("y") ? `${kind.slice(0, -1)}ies` : `${kind}s`;
}

/** The command that trusts the folder, from where the user stands. */
export function trustCommand(report: TrustReport, cwd: string): string {
  const rel = path.relative(path.resolve(cwd), report.folder);
  return rel === "" ? "agent trust" : `agent trust ${JSON.stringify(report.folder)}`;
}

/** One line for stderr when parts of the folder were not loaded; undefined when nothing was held back. */
export function trustNotice(report: TrustReport, cwd: string): string | undefined {
  if (!report.skipped.length) return undefined;
  const what = groups(report.skipped).join(", ");
  const head = report.state === "changed" ? `parts added to this folder since you trusted it were not loaded: ${what}` : `this folder is not trusted, so its ${what} ${report.skipped.length === 1 ? "was" : "were"} not loaded`;
  return `agent: ${head}. Trust it with: ${trustCommand(report, cwd)}`;
}

/** One line per part: what it is, what it would do, where it is written. */
export function trustLines(items: readonly TrustItem[], root: string): string[] {
  const width = Math.min(20, Math.max(0, ...items.map((i) => i.kind.length)));
  return items.map((i) => {
    const where = path.relative(root, i.file) || i.file;
    // A server's URL or a command line may hold a token: shown as the audit log would show it.
    return redactString(`  ${i.kind.padEnd(width)}  ${i.name}${i.detail ? `: ${i.detail}` : ""}  (${where})`);
  });
}

/** `agent doctor`'s words for the state. */
export function trustState(report: TrustReport): string {
  const by = { env: "AGENT_TRUST=1", option: "the host's option", folder: "your decision", parent: `your decision for ${report.trustedFolder}`, none: "" }[report.source];
  if (report.state === "untrusted") return `not trusted: ${report.folder}`;
  return `${report.state === "changed" ? "trusted, with parts added since" : "trusted"} (${by}): ${report.folder}`;
}
