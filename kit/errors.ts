/** Errors with stable codes. The CLI prints `message` (never a stack) unless debug output is on. */

export type ErrorCode =
  | "E_CONFIG"
  /** Another process held a file's lock for longer than the wait allows (config edits). */
  | "E_FILE_LOCKED"
  | "E_USAGE"
  | "E_TOOL_NOT_FOUND"
  /** The tool's source (an MCP server) cannot provide it now: it failed to start. */
  | "E_TOOL_UNAVAILABLE"
  /** The tool's source needs the user to log in first (an MCP server's OAuth): the CLI exits with `ExitCode.AUTH`. */
  | "E_TOOL_NEEDS_AUTH"
  | "E_TOOL_INVALID_INPUT"
  | "E_TOOL_DENIED"
  | "E_TOOL_TIMEOUT"
  | "E_TOOL_ABORTED"
  | "E_TOOL_FAILED"
  /** A call made from inside a tool nested deeper than `MAX_CALL_DEPTH` (a tool calling itself, A→B→A…): refused, nothing runs. */
  | "E_TOOL_DEPTH"
  | "E_PATH_OUTSIDE_WORKSPACE"
  /** Config `sandbox.required` is set and no OS sandbox works on this machine: the command is not run. */
  | "E_SANDBOX_UNAVAILABLE"
  /** The audit log cannot be written (a full disk) and `audit.onError` is not "warn": the call is not run. */
  | "E_AUDIT_UNAVAILABLE"
  | "E_REGISTER_REJECTED"
  | "E_PLUGIN"
  | "E_COMMAND_NOT_FOUND"
  | "E_NO_MODEL"
  | ModelErrorCode;

/** Codes of a failed model request (`ModelError` in model.ts, which is an `AgentError` too). */
export type ModelErrorCode =
  /** No API key configured; the message names the env var / config key. */
  | "E_MODEL_NO_KEY"
  /** The provider's settings (config `providers.<name>`) are invalid. */
  | "E_MODEL_CONFIG"
  /** 401/403: the key was refused. */
  | "E_MODEL_AUTH"
  /** 404: unknown model (or wrong base URL). */
  | "E_MODEL_NOT_FOUND"
  /** 400/422 and other client errors: the request was refused as it is. */
  | "E_MODEL_BAD_REQUEST"
  /** The request is longer than the model's context window (the loop compacts the conversation once and retries). */
  | "E_MODEL_CONTEXT_LENGTH"
  /** 429: rate limited. Retryable. */
  | "E_MODEL_RATE_LIMIT"
  /** 5xx, 529 overloaded, in-stream server errors. Retryable. */
  | "E_MODEL_SERVER"
  /** Could not connect (refused, DNS, reset before a response). Retryable. */
  | "E_MODEL_NETWORK"
  /** No response, or the stream went silent for too long. Retryable. */
  | "E_MODEL_TIMEOUT"
  /** The response stream broke mid-way. Retryable. */
  | "E_MODEL_STREAM"
  /** Anything else. */
  | "E_MODEL";

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
  /** A login is needed first (an MCP server that needs OAuth authorization). */
  AUTH: 4,
} as const;

/** A message as the end of a sentence: a full stop added unless it already ends with one (or ? or !). */
export function sentence(message: string): string {
  const t = message.trimEnd();
  return /[.?!]$/.test(t) ? t : `${t}.`;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The stack and every cause, for --debug. */
export function debugChain(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push(e instanceof Error ? (e.stack ?? e.message) : String(e));
  }
  return parts.join("\ncaused by: ");
}
