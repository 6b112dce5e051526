/** Errors with stable codes. The CLI prints `message` (never a stack) unless debug output is on. */

export type ErrorCode =
  | "E_CONFIG"
  | "E_USAGE"
  | "E_TOOL_NOT_FOUND"
  | "E_TOOL_INVALID_INPUT"
  | "E_TOOL_DENIED"
  | "E_TOOL_TIMEOUT"
  | "E_TOOL_ABORTED"
  | "E_TOOL_FAILED"
  | "E_PATH_OUTSIDE_WORKSPACE"
  | "E_REGISTER_REJECTED"
  | "E_PLUGIN"
  | "E_COMMAND_NOT_FOUND"
  | "E_MODEL"
  | "E_NO_MODEL";

export class AgentError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AgentError";
    this.code = code;
  }
}

/** An invalid config: names the file, the key path and what was expected. */
export class ConfigError extends AgentError {
  readonly file: string | undefined;
  readonly issues: { path: string; message: string }[];
  constructor(file: string | undefined, issues: { path: string; message: string }[]) {
    const where = file ?? "config";
    const lines = issues.map((i) => `  ${i.path || "(root)"}: ${i.message}`);
    super("E_CONFIG", `Invalid config in ${where}:\n${lines.join("\n")}`);
    this.name = "ConfigError";
    this.file = file;
    this.issues = issues;
  }
}

/** Process exit codes, documented in the README. */
export const ExitCode = {
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  DENIED: 3,
} as const;

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
