import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take a minute or more (on a loaded machine), started first, longest first: with two workers a
 * long file started last is the run's tail. Vitest orders by the durations it cached, but a fresh clone (CI)
 * has no cache and orders by file size, which put these last. A hint for the schedule only: a file missing
 * here just runs in its turn. npm-flow comes early: it builds the packed and installed agent-host that
 * plugin-author-flow, started later, then finds ready (tests/e2e/_host.ts).
 */
const LONG_FILES = [
  "tests/conformance/conformance.test.ts",
  "tests/e2e/npm-flow.test.ts",
  "tests/cli/trust-hostile/untrusted-data-config.test.ts",
  "tests/cli/trust-hostile/decision.test.ts",
  "tests/plugins/tools/protected-writes.test.ts",
  "tests/cli/trust-hostile/untrusted-code-config.test.ts",
  "tests/cli/escapes.test.ts",
  "tests/faults/catalog.test.ts",
  "tests/faults/config-lock.test.ts",
  "tests/cli/cli.test.ts",
  "tests/cli/trust-hostile/widening.test.ts",
  "tests/e2e/plugin-author-flow.test.ts",
  "tests/cli/run.test.ts",
];

/**
 * Node reads the certificates of NODE_EXTRA_CA_CERTS at every start, before any code runs: with a system bundle
 * that is ~0.1 s of CPU for each of the suite's thousand-odd node processes (workers, `agent`, servers, hooks).
 * No test goes online (npm runs offline from its cache; servers are local, TLS ones bring their own certificate),
 * so the suite's processes are started without it.
 */
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * The user's cache and state folders ($XDG_CACHE_HOME, $XDG_STATE_HOME): where an MCP server's tool cache and log
 * go in a project with no `.agent/` (most tests' projects). One folder of the run's, removed when it ends, so the
 * suite never writes into the real home; a test that checks them points them at its own.
 */
const USER_FOLDERS = mkdtempSync(path.join(os.tmpdir(), "agent-suite-xdg-"));
process.once("exit", () => rmSync(USER_FOLDERS, { recursive: true, force: true }));

/**
 * Files that share a worker process (`isolate: false`): a file in a process of its own costs ~0.4 s of CPU to start
 * the fork and ~0.5 s more to load the kernel and plugins again through vitest's module runner. 87 of these files
 * ran in 192 s of CPU isolated and 115 s sharing, the other 49 in 273 s and 238 s (2026-12-07). Only files that
 * leave the process as they found it: no vi.mock/spyOn/stubEnv, no process.env (but HOME put back), cwd, umask or
 * process listeners of their own, nothing on globalThis; they may start servers and processes. Named one by one:
 * a new file runs isolated until it is added here, and a file that changes the process must not be.
 */
const SHARED_WORKER_FILES = [
  "tests/cli/{answer-pty,audit,bare-model,claude-project,command-model,first-day-pty,hostile-plugins,interactive,long-session,permission-prompt-reason,plugin-add-registry,plugin-cli,plugin-self-resolution,printable-output,prompt-escapes,sessions-model,signal-exit-codes,subagent-lines,trust-grants,trust-interactive,trust-sandbox}.test.ts",
  "tests/core/{agent-host-imports,agents-kind,array-bulk,ask-user,atomic-write,audit-faults,audit-sink,audit-write-ahead,bare-model-names,call-agent,call-depth,compaction,config-source,context-hooks,detached-run,event-types,exact-rules,glob,hooks,hostile-plugins,local-settings,locked-update,loop-mcp,loop,model-names,no-sandbox,output,permission-hooks,plugin-isolation,plugin-packages,provider-errors,provider-models,registry,schema,session-hooks,sessions,setup-bound,shell-rules,shell,stale-temps,suggest,system-prompt-hook,tap-order,text-helpers,tool-names,tool-sources,trace-context,workspace,yaml}.test.ts",
  "tests/engines.test.ts",
  "tests/plugins/acp/acp.test.ts",
  "tests/plugins/agents/{definitions,runs,task}.test.ts",
  "tests/plugins/claude-plugins/{load,npm-and-options,pinning}.test.ts",
  "tests/plugins/commands/commands.test.ts",
  "tests/plugins/hooks/{decisions,fail-closed-json,failures,sandboxed,security,session-events,tool-events}.test.ts",
  "tests/plugins/instructions/cli.test.ts",
  "tests/plugins/markdown-commands/{arguments,cli,discovery,expand,grants}.test.ts",
  "tests/plugins/mcp-serve/serve.test.ts",
  "tests/plugins/mcp/{bad-servers,calls,cli-signals,cli,config,connect-failures,content,defects,fast-checks,hostile-frames,naming,oauth-browser,orphans,own-origin-issuer,risk,schemas-2020,scope,server-claims,skills,stdio-transport,x-mcp-header}.test.ts",
  "tests/plugins/skills/{catalog,cli,lenient,skills}.test.ts",
  "tests/plugins/telemetry/telemetry.test.ts",
  "tests/plugins/tool-search/{search,select}.test.ts",
  "tests/plugins/tools/{atomic-writes,file-encodings,ignore,kill-mid-edit,path-escapes,path-races,protected-writes,read-only-commands,run-command-caps,shell-evasions,tools}.test.ts",
  "tests/sandbox/{network-hosts,policy}.test.ts",
  "tests/skills/bundled.test.ts",
  "tests/types/fresh-project.test.ts",
];

class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG_FILES.findIndex((name) => f.moduleId.replaceAll("\\", "/").endsWith(name));
      return i < 0 ? LONG_FILES.length : i;
    };
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    // Type tests of the public API (*.test-d.ts): tsc checks them; a wrong type fails the run. Their own
    // tsconfig (the project's options, only these files and what they import): with tsconfig.json, tsc checked
    // the whole project, 570 files, as `npm run typecheck` (CI's step before `npm test`) had just done.
    typecheck: { enabled: true, include: ["tests/**/*.test-d.ts"], tsconfig: "./tsconfig.typetests.json" },
    // A hung test's safety net, not a measure of speed: tests wait for conditions, and on a fully loaded
    // machine (npm run test:loaded) real servers and processes take several times as long. Speed is bench/'s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // SUITE_CPU_LOG=<file>: each file's CPU seconds, children included (tests/helpers/cpu-log.ts).
    setupFiles: process.env.SUITE_CPU_LOG ? ["tests/helpers/cpu-log.ts"] : [],
    pool: "forks",
    maxWorkers: 2,
    sequence: { sequencer: LongFilesFirst },
    // The CLI and fixtures read the real environment; keep the user's config (and Claude Code's) out of every test.
    // Every test's project is trusted (AGENT_TRUST=1), as a user's own project is; the trust tests unset it.
    env: { XDG_CACHE_HOME: path.join(USER_FOLDERS, "cache"), XDG_STATE_HOME: path.join(USER_FOLDERS, "state"), AGENT_TRUST: "1", AGENT_CONFIG_HOME: "/nonexistent/agent-config-home", CLAUDE_CONFIG_DIR: "/nonexistent/claude-config-dir", NO_COLOR: "1" },
    projects: [
      { extends: true, test: { name: "isolated", include: ["tests/**/*.test.ts"], exclude: SHARED_WORKER_FILES } },
      // The type tests run once, with the isolated files.
      { extends: true, test: { name: "shared", include: SHARED_WORKER_FILES, isolate: false, typecheck: { enabled: false } } },
    ],
  },
});
