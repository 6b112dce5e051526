/** The terminal's Markdown and text-width helpers: what the interactive session draws answers and notices with. */
import stringWidth from "string-width";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createStyle, stripAnsi } from "../../cli/render/_style.js";
import { createMarkdownStream, renderMarkdown } from "../../cli/render/markdown.js";
import { cursorLineReflows, liveRows } from "../../cli/render/live-rows.js";
import { createPrettyRenderer } from "../../cli/render/pretty.js";
import { StatusLine } from "../../cli/render/status-line.js";
import { clipWords, wrapText } from "../../cli/render/text-width.js";

const plain = { width: 60, style: createStyle(false) };
const color = { width: 60, style: createStyle(true) };

describe("renderMarkdown", () => {
  it("draws emphasis, code, links, nested and ordered lists, quotes and rules", () => {
    const out = renderMarkdown("Use **bold**, *it*, `x()` and [docs](https://d.example).\n\n1. one\n2. two\n   - sub *a*\n\n> quoted\n\n---\n", plain);
    expect(out).toBe("Use bold, it, `x()` and docs (https://d.example).\n\n1. one\n2. two\n   ◦ sub a\n\n│ quoted\n\n" + "─".repeat(40) + "\n");
    const c = renderMarkdown("**b** *i* `c`", color);
    expect(c).toContain("\x1b[1mb\x1b[22m");
    expect(c).toContain("\x1b[3mi\x1b[23m");
    expect(c).toContain("\x1b[36mc\x1b[39m");
  });

  it("keeps code blocks as written (never wrapped) and wraps paragraphs at words", () => {
    const long = "word ".repeat(30).trim();
    const out = renderMarkdown(`${long}\n\n\`\`\`\n${long}\n\`\`\`\n`, plain).split("\n");
    expect(out.slice(0, 3).every((l) => l.length <= 60 && !l.startsWith(" ") && !l.endsWith(" "))).toBe(true);
    expect(out).toContain(`  ${long}`);
  });

  it("lines up table columns by display width (CJK and emoji are two columns)", () => {
    const out = renderMarkdown("| a | 名前 |\n|:-|-:|\n| 🎉🎉 | 日本 |\n| x | yz |\n", plain);
    const rows = out.trim().split("\n");
    expect(new Set(rows.map((r) => stringWidth(r))).size).toBe(1);
    expect(rows[3]).toBe("│ 🎉🎉 │ 日本 │");
    expect(rows[4]).toBe("│ x    │   yz │");
  });
});

describe("a table wider than the terminal", () => {
  const md = [
    "| Name | Description | Size |",
    "|---|---|--:|",
    "| alpha | The first entry of the table, described at some length so that it has to wrap | 12 |",
    "| 名前テスト | 日本語のテキストはとても長いのでこの列は折り返されるはずです 🎉 and emoji | 1234567 |",
    "| x | supercalifragilisticexpialidocious-and-more-longword | 3 |",
    "",
  ].join("\n");
  const cols = (line: string) => [...line].reduce<number[]>((at, ch, i, all) => ("│┼┬┴├┤┌┐└┘".includes(ch) ? [...at, stringWidth(all.slice(0, i).join(""))] : at), []);

  for (const width of [40, 80]) {
    it(`is fitted to ${width} columns: borders line up, cells wrap at words, a word longer than its column is cut with …`, () => {
      const rows = renderMarkdown(md, { width, style: createStyle(false) }).trimEnd().split("\n");
      expect(new Set(rows.map((r) => stringWidth(r)))).toEqual(new Set([width]));
      const borders = cols(rows[1]);
      for (const r of rows.slice(1, -1)) expect(cols(r), r).toEqual(borders);
      const cells = rows.map((r) => r.split("│").slice(1, -1).map((c) => c.trim()));
      const description = cells.map((c) => c[1] ?? "").filter(Boolean).join(" ");
      // Every word of a wrapped cell is there whole, in order.
      expect(description).toContain("The first entry of the table, described at some length so that it has to wrap");
      expect(description.replace(/ /g, "")).toContain("日本語のテキストはとても長いのでこの列は折り返されるはずです🎉andemoji");
      if (width === 40) expect(description).toMatch(/ supercalifra\S*…/);
      else expect(description).toContain("supercalifragilisticexpialidocious-and-more-longword");
      // The narrow columns keep their width.
      expect(cells.some((c) => c[0] === "名前テスト")).toBe(true);
      expect(cells.some((c) => c[2] === "1234567")).toBe(true);
    });
  }

  it("with colours: the same text, and a style wrapped over two lines is closed before the border", () => {
    const table = "| **bold words that have to wrap** | b |\n|-|-|\n| *an emphasised span, long* | c |\n";
    const c = renderMarkdown(table, { width: 24, style: createStyle(true) });
    expect(stripAnsi(c)).toBe(renderMarkdown(table, { width: 24, style: createStyle(false) }));
    for (const line of c.trimEnd().split("\n")) {
      expect(stringWidth(line)).toBe(24);
      // eslint-disable-next-line no-control-regex
      const last = line.slice(0, line.lastIndexOf("│")).match(/\x1b\[[0-9;]*m/g) ?? [];
      expect(["\x1b[39m", "\x1b[0m", "\x1b[22m", undefined]).toContain(last.filter((e) => e !== "\x1b[90m").pop());
    }
  });

  it("a table that fits is drawn as before, without rules between rows", () => {
    const out = renderMarkdown("| a | b |\n|-|-|\n| 1 | 2 |\n| 3 | 4 |\n", { width: 40, style: createStyle(false) });
    expect(out).toBe("┌───┬───┐\n│ a │ b │\n├───┼───┤\n│ 1 │ 2 │\n│ 3 │ 4 │\n└───┴───┘\n");
  });
});

/** The tests run as in xterm or xterm.js, whatever terminal they are started from. */
function asXterm(): void {
  beforeEach(() => {
    for (const k of ["TERM_PROGRAM", "VTE_VERSION", "KITTY_WINDOW_ID", "WT_SESSION", "ALACRITTY_WINDOW_ID", "WEZTERM_PANE"]) vi.stubEnv(k, "");
    vi.stubEnv("TERM", "xterm");
    return () => void vi.unstubAllEnvs();
  });
}

describe("createMarkdownStream", () => {
  asXterm();
  it("renders block by block as text streams in, the same as rendering it whole", () => {
    const md = "# T\n\npara **one**\n\n```\ncode\n\nstill code\n```\n\n- a\n- b\n";
    let out = "";
    const st = createMarkdownStream((s) => (out += s), () => plain);
    for (const piece of md.match(/[\s\S]{1,3}/g)!) st.push(piece);
    st.flush();
    expect(out).toBe(renderMarkdown(md, plain));
  });

  it("with a preview, shows the unfinished block raw and erases it (cursor up, clear) when it is drawn", () => {
    let out = "";
    const st = createMarkdownStream((s) => (out += s), () => plain, { preview: { columns: () => 80, rows: () => 24 } });
    st.push("so **far");
    expect(out).toBe("so **far");
    st.push("**\n\n");
    expect(out).toBe("so **far\r\x1b[0Jso far\n");
  });

  it("after a resize, the unfinished block is erased by the rows it takes now and drawn again at the new width", () => {
    let out = "";
    let columns = 100;
    const st = createMarkdownStream((s) => (out += s), () => ({ ...plain, width: columns - 1 }), { preview: { columns: () => columns, rows: () => 40 } });
    st.push("Done.\n\n");
    const long = "word ".repeat(30).trim(); // 149 columns: two rows at 100
    st.push(long);
    out = "";
    columns = 50;
    // xterm and xterm.js leave the cursor's line as drawn (two rows); the blank line before it is one.
    st.redraw();
    expect(out).toBe(`\r\x1b[2A\x1b[0J\n${long}`);
    out = "";
    st.push(" end\n\n");
    // Drawn at 50 columns now: three rows of it, and the blank one; then the paragraph rendered at 49.
    expect(out.startsWith("\r\x1b[3A\x1b[0J\n")).toBe(true);
    expect(out.slice("\r\x1b[3A\x1b[0J\n".length).split("\n").every((l) => l.length <= 49)).toBe(true);
  });
});

describe("liveRows: the rows a live line takes after a resize", () => {
  const text = `\n${"x".repeat(150)}`;
  it("xterm, xterm.js: earlier lines rewrapped, the cursor's line as it was drawn", () => {
    expect(liveRows(text, 100, 50, false)).toBe(1 + 2);
    expect(liveRows(`${"y".repeat(120)}\n${"x".repeat(10)}`, 100, 50, false)).toBe(3 + 1);
  });
  it("VTE, kitty, iTerm2 and the like rewrap the cursor's line too (told by the variables they set)", () => {
    expect(liveRows(text, 100, 50, true)).toBe(1 + 3);
    expect(cursorLineReflows({ VTE_VERSION: "7600" })).toBe(true);
    expect(cursorLineReflows({ TERM_PROGRAM: "iTerm.app" })).toBe(true);
    expect(cursorLineReflows({ TERM_PROGRAM: "vscode" })).toBe(false);
    expect(cursorLineReflows({ VTE_VERSION: "7600", TMUX: "/tmp/tmux-0/default,1,0" })).toBe(false);
  });
});

describe("the spinner line on a resize", () => {
  asXterm();
  it("is erased by the rows it now takes and drawn again within the new width", () => {
    let out = "";
    let columns = 100;
    const err = { write: (s: string) => (out += s), isTTY: true, columns };
    const status = new StatusLine({ err, style: createStyle(false), live: true, width: () => columns - 1, columns: () => columns, beforeDraw: () => {} });
    status.running.set("c1", { name: "run_command", detail: "x".repeat(200), started: performance.now() });
    status.draw();
    status.stopTimer();
    expect(stringWidth(stripAnsi(out.split("\x1b[K").pop()!))).toBe(99);
    out = "";
    columns = 40;
    status.resized();
    status.stopTimer();
    // xterm.js keeps the cursor's line as drawn: one row; where it is rewrapped (VTE...), three rows are erased.
    expect(out.startsWith("\r\x1b[K")).toBe(true);
    const drawn = out.split("\x1b[K").pop()!;
    expect(stringWidth(drawn)).toBeLessThanOrEqual(39);
  });
});

describe("text width", () => {
  it("wraps at words, measuring wide characters, and clips at a word boundary", () => {
    expect(wrapText("alpha beta gamma delta", 11, "  ")).toEqual(["alpha beta", "  gamma", "  delta"]);
    expect(wrapText("日本語の文章です", 8)).toEqual(["日本語の", "文章です"]);
    expect(clipWords("the rate limit was exceeded for this key", 20)).toBe("the rate limit was…");
  });

  it("a retry notice is shown whole, wrapped at words, never cut mid-word", () => {
    let err = "";
    const r = createPrettyRenderer({ out: { write: () => {} }, err: { write: (s: string) => void (err += s), columns: 50 }, color: false });
    const message = "429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit for this organization";
    r.handle({ type: "retry", attempt: 1, maxAttempts: 4, delayMs: 2000, message, code: "E_MODEL_RATE_LIMIT" } as never);
    const lines = stripAnsi(err).trimEnd().split("\n");
    expect(lines.join(" ").replace(/\s+/g, " ")).toContain(`${message} · retrying in 2.0s (attempt 2 of 4)`);
    expect(lines.every((l) => l.length <= 49)).toBe(true);
    expect(err).not.toContain("…");
  });
});
