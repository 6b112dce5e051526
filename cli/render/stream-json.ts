/**
 * `--output-format stream-json`: every event as one JSON object on its own line, written as it
 * happens (stdout to a pipe or file is synchronous on POSIX, so each line is out before the next event).
 */
import type { AgentEvent } from "../../core/index.js";
import type { Output } from "./_style.js";

export function createStreamJsonRenderer(out: Output) {
  return {
    handle(event: AgentEvent): void {
      out.write(`${JSON.stringify(event)}\n`);
    },
    finish(): void {},
  };
}
