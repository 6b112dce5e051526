/**
 * Bounds how many MCP servers start at once by the descriptors left under `ulimit -n`: started all
 * together, 25 stdio servers at `ulimit -n 64` all failed with EMFILE; queued, the ones that fit
 * connect and only those past the limit are refused, with the reason. With descriptors to spare
 * (the usual case) every start is admitted at once, in parallel as before.
 */
import { descriptors, tooManyFilesReason, type Descriptors } from "./descriptors.js";

/** Kept free for the host's own files (audit log, session, user files, sandboxed commands) and a spawn's short-lived pipes. */
export const HOST_RESERVE = 24;
/** What a connected server holds: stdin, stdout and stderr pipes and its log file (stdio); a socket and its log (remote). */
export const STDIO_COST = 4;
export const REMOTE_COST = 2;

export class StartQueue {
  private inFlight = 0;
  private waiting: (() => void)[] = [];

  constructor(
    private readonly count: () => Descriptors | undefined = descriptors,
    private readonly reserve = HOST_RESERVE,
  ) {}

  /**
   * Runs `start` once `cost` descriptors are free. Undefined when it ran; the reason when it was
   * refused: not enough free and no other start in flight that could free some.
   */
  async run(cost: number, start: () => Promise<void>): Promise<string | undefined> {
    for (;;) {
      const d = this.count();
      // Starts in flight may not have opened theirs yet: counted as if they had not (too few rather than too many).
      if (!d || d.limit - d.open - this.reserve - cost * this.inFlight >= cost) break;
      if (this.inFlight === 0) return tooManyFilesReason(d);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.inFlight++;
    try {
      await start();
    } finally {
      this.inFlight--;
      for (const wake of this.waiting.splice(0)) wake();
    }
    return undefined;
  }
}
