/**
 * Trusting a folder from the CLI: `agent trust` records the decision; an interactive session asks once,
 * before anything of the folder runs, showing what it would run (what an untrusted load held back).
 */
import { prepareHost, trustPreparedFolder, type PreparedHost, type TrustItem, type TrustReport } from "../core/embed.js";
import { builtinPlugins, configSources } from "./builtins.js";
import { printable } from "./render/_style.js";
import { trustLines } from "./trust-text.js";

/**
 * Trust `dir` with every part it has now. Loading it trusted is what shows every part (a plugin the
 * folder names may read files of its own): the user has just decided that it may run.
 */
export async function trustHere(dir: string): Promise<{ file: string; report: TrustReport; prepared: PreparedHost }> {
  const prepared = await prepareHost({ cwd: dir, builtins: builtinPlugins, configSources, trust: true });
  return { file: trustPreparedFolder(prepared), report: prepared.trust, prepared };
}

/** The question: what the folder would run, then trust / not now. True when the user trusts it. */
export async function askTrust(report: TrustReport, ask: (question: string) => Promise<string | null>): Promise<boolean> {
  const head =
    report.state === "changed"
      ? `Parts were added to ${report.folder} since you trusted it. If you trust them, agent-host will run or apply:`
      : `${report.folder} is not trusted yet. If you trust it, agent-host will run or apply what it ships:`;
  const lines = [head, ...trustLines(report.skipped, report.folder), "", "Trust only folders whose files you know: a plugin or hook of theirs runs with your rights."];
  // What the folder's files say is shown, never obeyed: their escape sequences cannot rewrite this question.
  const question = `${printable(lines.join("\n"))}\n\n[t] trust this folder  [n] not now (load only what narrows)\nTrust? `;
  for (;;) {
    const answer = (await ask(question))?.trim().toLowerCase();
    if (answer === null || answer === undefined || answer === "n" || answer === "no" || answer === "not now" || answer === "") return false;
    if (answer === "t" || answer === "y" || answer === "yes" || answer === "trust") return true;
  }
}

const partKey = (i: TrustItem) => `${i.kind}\0${i.name}\0${i.file}`;

/**
 * After `agent plugin add`: the user has just chosen plugin `pkg` for the project in `dir`. When it is the
 * only part of the folder held back (no trust decision yet, or one from before it was added), trusting
 * the folder admits nothing but what the user asked for, so it is trusted (and said); otherwise nothing is
 * decided here and the message says what else `agent trust` would admit. Undefined when nothing is held back.
 */
export async function trustAddedPlugin(dir: string, pkg: string): Promise<string | undefined> {
  // A config that does not load is not this command's to report: every later command says what is wrong.
  const now = await prepareHost({ cwd: dir, builtins: builtinPlugins, configSources }).catch(() => undefined);
  const held = now?.trust.skipped ?? [];
  if (!now || !held.length) return undefined;
  const heldKeys = new Set(held.map(partKey));
  const admitted = new Set(now.trust.items.map(partKey).filter((k) => !heldKeys.has(k)));
  const isOurs = (i: TrustItem) => i.kind === "plugin" && i.name === pkg;
  if (held.every(isOurs)) {
    // Loaded trusted, the plugin may show parts of its own (a file it reads): then the user decides.
    const trusted = await prepareHost({ cwd: dir, builtins: builtinPlugins, configSources, trust: true }).catch(() => undefined);
    const added = trusted?.trust.items.filter((i) => !admitted.has(partKey(i)));
    if (trusted && added?.every(isOurs)) {
      const file = trustPreparedFolder(trusted);
      return `${pkg} is all this folder runs that was not trusted, so the folder is trusted for it (kept in ${file}; agent untrust undoes it).`;
    }
  }
  const others = held.filter((i) => !isOurs(i));
  return [
    `${now.trust.folder} is not trusted${now.trust.state === "changed" ? " with its new parts" : ""}, so ${pkg} loads once you trust it: agent trust`,
    ...(others.length ? [`That also admits what the folder ships:`, ...trustLines(others, now.trust.folder)] : []),
  ].join("\n");
}
