/**
 * Trusting a folder from the CLI: `agent trust` records the decision; an interactive session asks once,
 * before anything of the folder runs, showing what it would run (what an untrusted load held back).
 */
import { prepareHost, trustPreparedFolder, type PreparedHost, type TrustReport } from "../core/embed.js";
import { builtinPlugins } from "./builtins.js";
import { printable } from "./render/_style.js";
import { trustLines } from "./trust-text.js";

/**
 * Trust `dir` with every part it has now. Loading it trusted is what shows every part (a plugin the
 * folder names may read files of its own): the user has just decided that it may run.
 */
export async function trustHere(dir: string): Promise<{ file: string; report: TrustReport; prepared: PreparedHost }> {
  const prepared = await prepareHost({ cwd: dir, builtins: builtinPlugins, trust: true });
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
