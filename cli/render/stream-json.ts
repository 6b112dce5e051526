/**
 * `--output-format stream-json`: every event as one JSON object on its own line, written as it
 * happens (stdout to a pipe or file is synchronous on POSIX, so each line is out before the next event).
 */
import type { AgentEvent } from "../../core/index.js";
import { printableJson, type Output } from "./_style.js";

export function createStreamJsonRenderer(out: Output) {
  // JSON escapes ESC and the C0 controls; on a terminal the C1 controls and bidi overrides too.
  const terminal = !!out.isTTY;
  return {
    handle(event: AgentEvent): void {
      const line = JSON.stringify(event);
      out.write(`${terminal ? printableJson(line) : line}\n`);
    },
    finish(): void {},
  };
}
