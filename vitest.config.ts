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
    // The CLI and fixtures read the real environment; keep the user's config (and Claude Code's) out of every test.
    // Every test's project is trusted (AGENT_TRUST=1), as a user's own project is; the trust tests unset it.
    env: { AGENT_TRUST: "1", AGENT_CONFIG_HOME: "/nonexistent/agent-config-home", CLAUDE_CONFIG_DIR: "/nonexistent/claude-config-dir", NO_COLOR: "1" },
  },
});
