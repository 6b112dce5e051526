/**
 * The model's answer on stdout for the pretty renderer: streamed as written, streamed as Markdown
 * (block by block, with a live preview on a terminal), or held and printed when the run ends.
 */
import { createStyle, movesCursor, useColor, type Output } from "./_style.js";
import { createMarkdownStream } from "./markdown.js";

export interface AnswerTextOptions {
  out: Output;
  /** Stream the text as it arrives; otherwise print the final answer at the end. */
  streaming: boolean;
  /** Render streamed text as Markdown, block by block. */
  markdown: boolean;
  color: boolean | undefined;
  /** Called before text is written: the spinner's line is cleared first. */
  beforeWrite(): void;
}

/** The model's text on `out`: streamed as written, streamed as Markdown, or held for the end of the run. */
export class AnswerText {
  private atLineStart = true;
  private readonly md: ReturnType<typeof createMarkdownStream> | undefined;

  constructor(private readonly options: AnswerTextOptions) {
    const { out, streaming, markdown, color, beforeWrite } = options;
    const rendered = (text: string) => {
      beforeWrite();
      out.write(text);
      this.atLineStart = true;
    };
    this.md = markdown && streaming
      ? createMarkdownStream(
          rendered,
          () => ({ width: Math.max(20, Math.min(out.columns || 100, 120) - 1), style: createStyle(color ?? useColor(out)) }),
          movesCursor(out) ? { preview: { columns: () => out.columns || 80, rows: () => (out as { rows?: number }).rows || 24 } } : {},
        )
      : undefined;
  }

  write(delta: string): void {
    const { out, streaming, beforeWrite } = this.options;
    if (this.md) {
      beforeWrite();
      this.md.push(delta);
    } else if (streaming) {
      beforeWrite();
      out.write(delta);
      this.atLineStart = delta.endsWith("\n");
    }
  }

  /** The terminal was resized: the part still being written is drawn again at the new width. */
  resized(): void {
    this.md?.redraw();
  }

  /** Text and tool lines share one terminal: start tool lines on a fresh line (after the Markdown held back). */
  breakLine(): void {
    this.md?.flush();
    if (this.options.streaming && !this.atLineStart) {
      this.options.out.write("\n");
      this.atLineStart = true;
    }
  }

  /** The run is over: drop the Markdown state; print the answer if it was held. */
  end(result: string | undefined): void {
    this.md?.reset();
    if (!this.options.streaming && result) this.options.out.write(result.endsWith("\n") ? result : `${result}\n`);
  }
}
