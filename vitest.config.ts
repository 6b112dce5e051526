import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Type tests of the public API (*.test-d.ts): tsc checks them; a wrong type fails the run.
    typecheck: { enabled: true, include: ["tests/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    // A hung test's safety net, not a measure of speed: tests wait for conditions, and on a fully loaded
    // machine (npm run test:loaded) real servers and processes take several times as long. Speed is bench/'s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    // The bash parser (core/shell/parser.ts, tree-sitter wasm) has V8 optimize its 1.4 MB module on background
    // threads, and a process does not exit before that is done: ~1.2 s CPU and ~2 s per test file that parses a
    // command. Liftoff (V8's baseline wasm compiler) runs the same code; the workers need nothing faster.
    // Only the test workers: the CLI the tests spawn runs as a user's does.
    execArgv: ["--liftoff-only"],
    // The CLI and fixtures read the real environment; keep the user's config (and Claude Code's) out of every test.
    // Every test's project is trusted (AGENT_TRUST=1), as a user's own project is; the trust tests unset it.
    env: { AGENT_TRUST: "1", AGENT_CONFIG_HOME: "/nonexistent/agent-config-home", CLAUDE_CONFIG_DIR: "/nonexistent/claude-config-dir", NO_COLOR: "1" },
  },
});
