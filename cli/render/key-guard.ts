/**
 * While `agent run` works in a terminal, keys typed are read and dropped instead of echoed by the
 * terminal over the spinner line; Ctrl-C (a key in raw mode) still means SIGINT. A permission question
 * suspends the guard (its own readline reads the answer) and resumes it after.
 */
export interface KeyGuard {
  suspend(): void;
  resume(): void;
  stop(): void;
}

export function guardKeys(input: NodeJS.ReadStream = process.stdin, onCtrlC: () => void = () => void process.emit("SIGINT", "SIGINT")): KeyGuard | undefined {
  if (!input.isTTY) return undefined;
  const onData = (d: Buffer | string) => {
    if (String(d).includes("\x03")) onCtrlC();
  };
  let on = false;
  const resume = () => {
    if (on) return;
    on = true;
    input.setRawMode(true);
    input.on("data", onData);
    input.resume();
  };
  const suspend = () => {
    if (!on) return;
    on = false;
    input.off("data", onData);
    input.setRawMode(false);
    input.pause();
  };
  resume();
  return { suspend, resume, stop: suspend };
}
