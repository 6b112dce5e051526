/**
 * The pieces every printing path shares (see tests/cli/escapes.test.ts for the built CLI under a
 * terminal): `printable` (bidi controls too), JSON for a terminal, tables sized to what they show, and
 * the renderer's stderr lines redacted as the audit log is, on a terminal or not.
 */
import { describe, expect, test } from "vitest";
import type { AgentEvent } from "../../core/index.js";
import { jsonFor, table } from "../../cli/format.js";
import { createPrettyRenderer } from "../../cli/render/pretty.js";
import { createStreamJsonRenderer } from "../../cli/render/stream-json.js";
import { printable, printableFor, printableJson, stripAnsi } from "../../cli/render/_style.js";

class Sink {
  text = "";
  constructor(readonly isTTY = false) {}
  readonly columns = 200;
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

// eslint-disable-next-line no-control-regex
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const EVIL = "a\x1b[2Jb\x1b]0;t\x07c\x9b1Ad\u202eevil\u2066e\x7f";

describe("printable", () => {
  test.each([
    ["bidi override", "file\u202egnp.exe", "file\\u202egnp.exe"],
    ["bidi embeddings and pop", "\u202a\u202b\u202c\u202d", "\\u202a\\u202b\\u202c\\u202d"],
    ["bidi isolates", "\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069"],
    ["C1 CSI and OSC", "\x9b2J\x9d0;t\x9c", "\\x9b2J\\x9d0;t\\x9c"],
    ["DEL", "x\x7f", "x\\x7f"],
    ["letters of right-to-left scripts are text", "שלום مرحبا", "שלום مرحبا"],
  ])("%s", (_what, input, shown) => {
    expect(printable(input)).toBe(shown);
    expect(printable(shown)).toBe(shown);
  });

  test("printableFor: a terminal gets it shown, a pipe as written", () => {
    expect(printableFor({ isTTY: true }, EVIL)).not.toMatch(RAW);
    expect(printableFor({ isTTY: false }, EVIL)).toBe(EVIL);
    expect(printableFor({}, EVIL)).toBe(EVIL);
  });
});

describe("JSON for a terminal", () => {
  test("what JSON.stringify leaves raw is escaped; the value is the same", () => {
    const value = { s: EVIL, list: [EVIL], [EVIL]: 1 };
    const plain = JSON.stringify(value, null, 2);
    expect(plain).toMatch(RAW); // JSON.stringify alone leaves C1, DEL and bidi controls raw
    for (const json of [printableJson(plain), jsonFor(value, { isTTY: true })]) {
      expect(json).not.toMatch(RAW);
      expect(JSON.parse(json)).toEqual(value);
      expect(json).toContain("\\u001b[2J");
      expect(json).toContain("\\u009b1A");
      expect(json).toContain("\\u202eevil");
    }
    expect(jsonFor(value, { isTTY: false })).toBe(plain);
  });

  test("stream-json on a terminal: each line parses back to the event", () => {
    const out = new Sink(true);
    const r = createStreamJsonRenderer(out);
    const event: AgentEvent = { type: "error", code: "E_X", message: EVIL };
    r.handle(event);
    expect(out.text).not.toMatch(RAW);
    expect(JSON.parse(out.text)).toEqual(event);
    const piped = new Sink(false);
    createStreamJsonRenderer(piped).handle(event);
    expect(piped.text).toBe(`${JSON.stringify(event)}\n`);
  });
});

describe("tables", () => {
  test("for a terminal, cells are shown before the columns are sized: the columns line up", () => {
    const rows = [
      ["a\x1b[2J", "x"],
      ["bb", "y\x07"],
    ];
    const lines = table(rows, ["NAME", "DETAIL"], true).split("\n");
    expect(lines).toEqual(["NAME      DETAIL", "a\\x1b[2J  x", "bb        y\\x07"]);
    expect(table(rows, ["NAME", "DETAIL"], false)).toContain("a\x1b[2J");
  });
});

describe("the renderer's stderr lines are redacted, piped or not", () => {
  const SECRET = "SECRETabc123";
  const events: AgentEvent[] = [
    { type: "tool_start", callId: "c1", name: "fetch", input: { url: `https://api.example.com/v1?token=${SECRET}&q=1` }, risk: "read", source: "t" },
    { type: "tool_progress", callId: "c1", name: "fetch", progress: 1, message: `retrying https://u:${SECRET}@h.example/` },
    { type: "tool_end", callId: "c1", name: "fetch", outcome: "error", durationMs: 5, error: `GET https://api.example.com/v1?api_key=${SECRET} failed` } as AgentEvent,
    { type: "tool_start", callId: "c2", name: "login", input: { user: "ada", password: SECRET }, risk: "read", source: "t" },
    { type: "tool_end", callId: "c2", name: "login", outcome: "ok", durationMs: 5 } as AgentEvent,
    { type: "retry", attempt: 1, maxAttempts: 3, delayMs: 10, code: "E_MODEL_RATE_LIMIT", message: `429 from https://api.example.com/?key=${SECRET}` },
    { type: "error", code: "E_X", message: `Bearer ${SECRET}xyz rejected` },
  ];

  test.each([false, true])("terminal: %s", (tty) => {
    const out = new Sink(tty);
    const err = new Sink(tty);
    const r = createPrettyRenderer({ out, err, summary: false, color: false });
    for (const e of events) r.handle(e);
    r.dispose();
    const text = stripAnsi(err.text);
    expect(text).not.toContain(SECRET);
    expect(text).toContain("✗ fetch https://api.example.com/v1?token=[REDACTED]&q=1");
    expect(text).toContain("GET https://api.example.com/v1?api_key=[REDACTED] failed");
    expect(text).toContain('✓ login {"user":"ada","password":"[REDACTED]"}');
    expect(text).toContain("429 from https://api.example.com/?key=[REDACTED]");
    expect(text).toContain("Bearer [REDACTED] rejected");
  });

  test("the answer on stdout is the model's, as written (piped)", () => {
    const out = new Sink(false);
    const r = createPrettyRenderer({ out, err: new Sink(false), summary: false, streamText: true });
    r.handle({ type: "text_delta", text: `the URL was https://x.example/?token=${SECRET}` });
    r.dispose();
    expect(out.text).toBe(`the URL was https://x.example/?token=${SECRET}`);
  });
});
