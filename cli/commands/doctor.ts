/** `agent doctor`: config, plugins, tools and the problems found. Exit 1 when there are problems. */
import { AgentError, type PluginHost } from "../../core/index.js";
import { resolveModel, type SandboxStatus, type TrustReport } from "../../core/embed.js";
import { agentHostFor, loadInstructions } from "../../kit/index.js";
import { createCommandSandbox } from "../builtins.js";
import { version } from "../context.js";
import { unsupportedClaudeFeatures } from "../claude-features.js";
import { shellDenyNotes, unmatchedRules } from "../rule-check.js";
import { trustLines, trustState } from "../trust-text.js";
import { defineAppCommand } from "./_define.js";

const CODE_CONFIG = /\.(c|m)?(j|t)s$/;

/** The folder's trust, and what it would load if trusted (what was held back). */
function trustSection(trust: TrustReport): string[] {
  const held = trust.skipped.length ? [`     not loaded (${trust.state === "changed" ? "added since you trusted it" : "it would load if trusted"}; agent trust loads them):`, ...trustLines(trust.skipped, trust.folder).map((l) => `   ${l}`)] : [];
  const mark = trust.state === "trusted" ? "ok  " : "warn";
  const none = trust.state === "untrusted" && !trust.skipped.length ? " (it has nothing that would run or widen)" : "";
  return [`${mark} folder trust: ${trustState(trust)}${none}`, ...held];
}

/** Which sandbox run_command uses, or why none (then commands have the rules only), and the policy in a few words. */
function sandboxLine(st: SandboxStatus, policy: string): string {
  const sockets = st.unixSockets ? `; Unix sockets ${st.unixSockets}${st.unixSockets === "open" ? " (a host list or \"all\" needs them, or no seccomp here)" : ""}` : "";
  if (st.kind !== "none") return `ok   sandbox: ${st.kind === "bwrap" ? "bubblewrap" : "sandbox-exec (Seatbelt)"}; ${policy}${sockets}`;
  const then = st.required ? "commands are refused (sandbox.required)" : "commands run with the permission rules only";
  return `${st.required ? "FAIL" : "warn"} sandbox: none: ${st.reason}; ${then}`;
}

export default defineAppCommand({
  name: "doctor",
  description: "check config, plugins and tools; report problems",
  usage: "[--json]",
  options: { json: { type: "boolean", description: "print the report as JSON" } },
  positionals: false,
  async run(ctx) {
    const host = await ctx.openHost({ quiet: true, lazyTools: false, listing: true });
    // No model is not a problem (only `agent run` and the interactive session need one); a model that
    // names no registered provider, or is malformed, is.
    const warnings: string[] = [];
    const modelProblems: string[] = [];
    const model = host.session.model ?? null;
    if (!model) warnings.push('model: none configured; agent run and the interactive session need one (set model: "provider:model" in config, --model, or AGENT_MODEL)');
    else {
      try {
        resolveModel(host, model);
      } catch (err) {
        modelProblems.push(err instanceof AgentError ? err.message : String(err));
      }
    }
    // A rule naming no tool does nothing: a warning (a pasted `Bash(rm:*)` deny rule is worth seeing).
    for (const w of unmatchedRules(host)) warnings.push(w.message);
    // What a deny rule on run_command cannot see (interpreters with inline code): said, so nobody relies on it.
    const notes = shellDenyNotes(host);
    // Problems that break nothing (a setting not applied, a hook event that never fires here).
    for (const p of host.problems) if (p.level === "warning") warnings.push(p.message);
    const claudeUnsupported = unsupportedClaudeFeatures(host);
    for (const f of claudeUnsupported) warnings.push(`Claude Code ${f.feature} (${f.where}): ${f.note}`);
    const prepared = await ctx.prepare();
    // The files the built-in instructions plugin puts in the system prompt; none when it is off (disabledPlugins).
    const instructionsOn = host.plugins.some((p) => p.name === "instructions" && p.status === "loaded");
    const instructions = instructionsOn ? loadInstructions({ root: host.workspace.root, cwd: host.cwd, userConfigDir: prepared.userConfigDir, workspace: host.workspace }) : { files: [], skipped: [] };
    for (const skip of instructions.skipped) warnings.push(`instructions: ${skip}`);
    const sandbox = createCommandSandbox(host.config.sandbox, host.workspace);
    const sandboxStatus = await sandbox.status();
    const sandboxProblems = sandboxStatus.kind === "none" && sandboxStatus.required ? [`sandbox: config sandbox.required is set and no OS sandbox works here (${sandboxStatus.reason}): run_command refuses every command`] : [];
    const bySource = new Map<string, number>();
    for (const t of host.tools.list()) bySource.set(t.source, (bySource.get(t.source) ?? 0) + 1);
    const report = {
      version: version(),
      node: process.version,
      cwd: host.cwd,
      projectRoot: host.workspace.root,
      configFiles: host.configFiles,
      // A config that is code imports agent-host: the project's copy, or (with none) this CLI's own.
      configCode: host.configFiles.filter((f) => CODE_CONFIG.test(f)).map((file) => ({ file, ...agentHostFor(file) })),
      permissionMode: host.permissionMode,
      model,
      providers: host.providers.list().map((p) => p.name),
      plugins: host.plugins.map((p) => ({ name: p.name, status: p.status, error: p.error })),
      tools: Object.fromEntries(bySource),
      commands: host.commands.list().length,
      skills: skillsReport(host),
      instructions: instructions.files.map((f) => ({ path: f.path, label: f.label, scope: f.scope, bytes: f.bytes, ...(f.importedBy ? { importedBy: f.importedBy } : {}), ...(f.truncated ? { truncated: true } : {}) })),
      sandbox: { ...sandboxStatus, hooks: sandbox.hooks, policy: sandbox.describe() },
      trust: { state: prepared.trust.state, folder: prepared.trust.folder, source: prepared.trust.source, notLoaded: prepared.trust.skipped, parts: prepared.trust.items },
      problems: [...modelProblems, ...sandboxProblems, ...host.problems.filter((p) => p.level !== "warning").map((p) => p.message)],
      warnings,
      notes,
      claudeUnsupported,
    };
    if (ctx.values.json) {
      ctx.printJson(report);
      return report.problems.length ? 1 : 0;
    }
    const ok = (b: boolean) => (b ? "ok  " : "FAIL");
    const out: string[] = [];
    out.push(`agent ${report.version} on Node ${report.node}`);
    out.push(`project root: ${report.projectRoot}`);
    out.push(...trustSection(prepared.trust));
    out.push(`${ok(true)} config: ${report.configFiles.length ? report.configFiles.join(", ") : "no config files (defaults)"}`);
    for (const c of report.configCode) out.push(`ok   ${c.file} imports agent-host ${c.version} from ${c.source === "cli" ? "this agent's own package" : "the project"} (${c.dir})`);
    for (const w of warnings.filter((x) => !x.startsWith("model: "))) out.push(`warn ${w}`);
    if (!model) out.push(`warn ${warnings[0]}`);
    else out.push(`${ok(!modelProblems.length)} model: ${model}${modelProblems.length ? `: ${modelProblems[0]}` : ""}`);
    for (const p of report.plugins) out.push(`${p.status === "disabled" ? "off " : ok(p.status === "loaded")} plugin ${p.name}${p.status === "disabled" ? " (disabled)" : ""}${p.error ? `: ${p.error}` : ""}`);
    out.push(`tools: ${[...bySource].map(([s, n]) => `${s} ${n}`).join(", ") || "none"}`);
    const sk = report.skills;
    const more = (["always", "user-only", "disabled"] as const).filter((k) => sk.states[k]).map((k) => `, ${sk.states[k]} ${k}`).join("");
    out.push(`skills: ${sk.states.listed} listed, ${sk.states.shortened} shortened, ${sk.states["left out"]} left out${more} (budget ${sk.budget})`);
    out.push(`instructions: ${instructions.files.length ? instructions.files.map((f) => `${f.label} (${f.bytes} bytes${f.importedBy ? `, imported by ${f.importedBy}` : ""}${f.truncated ? ", cut" : ""})`).join(", ") : instructionsOn ? "no AGENTS.md or CLAUDE.md found" : "off (the instructions plugin is not loaded)"}`);
    out.push(`permission mode: ${report.permissionMode}`);
    for (const n of notes) out.push(`note ${n}`);
    out.push(sandboxLine(sandboxStatus, report.sandbox.policy));
    if (report.problems.length) {
      out.push("", `${report.problems.length} problem(s):`, ...report.problems.map((p) => `  - ${p}`));
    } else out.push("", `No problems found${warnings.length ? ` (${warnings.length} warning${warnings.length > 1 ? "s" : ""} above)` : ""}.`);
    // Plugins' errors and problems quote what plugins and servers said: ctx.print shows them, on a terminal, as text.
    ctx.print(out.join("\n"));
    return report.problems.length ? 1 : 0;
  },
});

/**
 * Skills by catalog state. The skills plugin publishes its catalog's cut in the meta of its `skill` tool
 * (the CLI may not import plugins); with no such tool no skill is listed, so the rest count as left out.
 */
function skillsReport(host: PluginHost) {
  const tool = host.tools.get("skill");
  const meta = (tool?.plugin === "skills" ? tool.meta?.catalog : undefined) as Record<"listed" | "shortened" | "leftOut" | "always" | "userOnly" | "disabled", string[]> & { budget: number } | undefined;
  const cfg = (host.config.skills ?? {}) as { budget?: number; always?: string[]; disabled?: string[] };
  const all = host.skills.list();
  const disabled = meta?.disabled ?? all.filter((s) => cfg.disabled?.includes(s.name)).map((s) => s.name);
  const always = meta?.always ?? all.filter((s) => !disabled.includes(s.name) && cfg.always?.includes(s.name)).map((s) => s.name);
  const userOnly = meta?.userOnly ?? all.filter((s) => ![...disabled, ...always].includes(s.name) && s.meta?.disableModelInvocation === true).map((s) => s.name);
  const leftOut = meta?.leftOut ?? all.map((s) => s.name).filter((n) => ![...disabled, ...always, ...userOnly].includes(n));
  const shortened = meta?.shortened ?? [];
  const states = { listed: meta?.listed.length ?? 0, shortened: shortened.length, "left out": leftOut.length, always: always.length, "user-only": userOnly.length, disabled: disabled.length };
  return { budget: meta?.budget ?? cfg.budget ?? 8000, states, shortened, leftOut };
}
