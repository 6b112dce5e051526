/** Errors for people: one AgentError family with stable codes, each mapped to a documented exit code. */
import { expect, test, vi } from "vitest";
import { reportError } from "../../cli/main.js";
import { AgentError, ExitCode, ModelError, parseProviderConfig, z } from "../../core/index.js";

test("a ModelError is an AgentError; a missing key is a config error (exit 2), a refused key a failure (exit 1)", () => {
  const noKey = new ModelError("E_MODEL_NO_KEY", "OPENAI_API_KEY is not set", { provider: "openai" });
  expect(noKey).toBeInstanceOf(AgentError);
  expect(noKey).toMatchObject({ name: "ModelError", code: "E_MODEL_NO_KEY", retryable: false, provider: "openai" });
  expect(new ModelError("E_MODEL_RATE_LIMIT", "slow down").retryable).toBe(true);
  const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
  try {
    expect(reportError(noKey, false)).toBe(ExitCode.USAGE);
    expect(write).toHaveBeenCalledWith("agent: OPENAI_API_KEY is not set\n");
    expect(reportError(new ModelError("E_MODEL_AUTH", "the key was refused"), false)).toBe(ExitCode.FAILED);
    expect(reportError(new AgentError("E_TOOL_DENIED", "no"), false)).toBe(ExitCode.DENIED);
    // No stack trace without --debug.
    expect(write.mock.calls.map(([s]) => String(s)).join("")).not.toMatch(/\n\s+at /);
  } finally {
    write.mockRestore();
  }
});

test("parseProviderConfig: valid settings come back parsed; invalid ones are E_MODEL_CONFIG naming the key", () => {
  const schema = z.strictObject({ baseURL: z.url().optional(), maxTokens: z.number().int().positive().default(1024) });
  expect(parseProviderConfig(schema, "acme", undefined)).toEqual({ maxTokens: 1024 });
  let err: unknown;
  try {
    parseProviderConfig(schema, "acme", { maxTokens: -3 });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ModelError);
  expect(err).toMatchObject({ code: "E_MODEL_CONFIG", provider: "acme", message: expect.stringMatching(/^Invalid config providers\.acme\.maxTokens: .+\.$/) });
});
