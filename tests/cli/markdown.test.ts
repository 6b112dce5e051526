/** The terminal's Markdown and text-width helpers: what the interactive session draws answers and notices with. */
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { createStyle, stripAnsi } from "../../cli/render/_style.js";
import { createMarkdownStream, renderMarkdown } from "../../cli/render/markdown.js";
import { createPrettyRenderer } from "../../cli/render/pretty.js";
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

describe("createMarkdownStream", () => {
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
