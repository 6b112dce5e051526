/**
 * Bounded capture of a command's output stream: the first and the last `keep` bytes, and the true total.
 * The tail matters most (a build's error is at its end), and memory stays at 2 × keep whatever the
 * command prints.
 */

/** What the model and hooks see of one stream, by default: 32 KiB from its start and 32 KiB from its end. */
export const HEAD_TAIL_BYTES = 32 * 1024;

export class HeadTailCapture {
  private readonly head: Buffer;
  private headSize = 0;
  /** A ring of the newest bytes past the head; `tailAt` is where the next byte goes. */
  private readonly ring: Buffer;
  private tailAt = 0;
  private tailSize = 0;
  /** Every byte the stream carried. */
  total = 0;

  constructor(private readonly keep = HEAD_TAIL_BYTES) {
    this.head = Buffer.alloc(keep);
    this.ring = Buffer.alloc(keep);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.keep - this.headSize;
    if (room > 0) {
      const n = chunk.copy(this.head, this.headSize, 0, Math.min(room, chunk.length));
      this.headSize += n;
      chunk = chunk.subarray(n);
    }
    // Only the last `keep` bytes of a chunk can survive in the ring.
    if (chunk.length > this.keep) chunk = chunk.subarray(chunk.length - this.keep);
    while (chunk.length > 0) {
      const n = chunk.copy(this.ring, this.tailAt, 0, Math.min(chunk.length, this.keep - this.tailAt));
      this.tailAt = (this.tailAt + n) % this.keep;
      this.tailSize = Math.min(this.keep, this.tailSize + n);
      chunk = chunk.subarray(n);
    }
  }

  /** Bytes held in memory (fixed: both buffers are allocated up front). */
  get held(): number {
    return this.head.length + this.ring.length;
  }

  /** The stream as text: whole when it fit, else head, a line with the true sizes, and tail. */
  text(): string {
    const head = this.head.subarray(0, this.headSize);
    const tail = this.tailBytes();
    if (this.total === head.length + tail.length) return Buffer.concat([head, tail]).toString("utf8");
    // Cut on character boundaries, so no half character turns into U+FFFD.
    const headEnd = wholeCharsEnd(head);
    let tailStart = 0;
    while (tailStart < tail.length && isContinuation(tail[tailStart])) tailStart++;
    const shownTail = tail.length - tailStart;
    const note = `[… ${this.total} bytes in all, ${this.total - headEnd - shownTail} not shown; above, the first ${headEnd}, below, the last ${shownTail} …]`;
    return `${head.subarray(0, headEnd).toString("utf8")}\n${note}\n${tail.subarray(tailStart).toString("utf8")}`;
  }

  private tailBytes(): Buffer {
    if (this.tailSize < this.keep) return this.ring.subarray(0, this.tailSize);
    return Buffer.concat([this.ring.subarray(this.tailAt), this.ring.subarray(0, this.tailAt)]);
  }
}

const isContinuation = (b: number) => (b & 0xc0) === 0x80;

/** Where `buf` stops holding whole UTF-8 characters (a last character cut short is left out). */
function wholeCharsEnd(buf: Buffer): number {
  let i = buf.length - 1;
  while (i > 0 && isContinuation(buf[i])) i--;
  if (i < 0) return 0;
  const lead = buf[i];
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + size <= buf.length ? buf.length : i;
}
