/** The renderers, fed real events from a loop run (fake model server, real provider plugin). */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { AgentEvent } from "../../core/index.js";
import { createJsonRenderer } from "../../cli/render/json.js";
import { createPrettyRenderer } from "../../cli/render/pretty.js";
import { createStreamJsonRenderer } from "../../cli/render/stream-json.js";
import { stripAnsi, useColor } from "../../cli/render/_style.js";
import { openHost, startFake, type FakeServer, type TestHost } from "./loop-helpers.js";

/** A write sink that looks like a stream (optionally a terminal). */
class Sink {
  text = "";
  constructor(
    readonly isTTY = false,
    readonly columns = 80,
  ) {}
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

let srv: FakeServer | undefined;
let t: TestHost | undefined;
let events: AgentEvent[] = [];
const savedColor = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };

beforeEach(async () => {
  delete process.env.NO_COLOR;
  delete process.env.FORCE_COLOR;
  srv = await startFake("openai", [
    { text: "Reading.", toolCalls: [{ id: "r1", name: "read_thing", arguments: { path: "notes.md" } }, { id: "w1", name: "write_thing", arguments: { path: "out.md" } }], usage: { input: 1500, output: 40 } },
    { text: "Done: notes read.", usage: { input: 1800, output: 12 } },
  ]);
  t = await openHost("openai", srv, {
    tools: [
      { name: "read_thing", description: "read", risk: "read", inputSchema: { type: "object" }, run: () => "contents" },
      { name: "write_thing", description: "write", risk: "write", inputSchema: { type: "object" }, run: () => "written" },
    ],
  });
  await t.host.run("Read my notes");
  events = t.events;
});
afterEach(async () => {
  await t?.close();
  await srv?.close();
  for (const [k, v] of Object.entries(savedColor)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe("pretty", () => {
  test("not a terminal: no colours, no spinner; the final answer alone on out; one line per tool call on err", () => {
    const out = new Sink();
    const err = new Sink();
    const r = createPrettyRenderer({ out, err });
    events.forEach(r.handle);
    r.dispose();
    expect(out.text).toBe("Done: notes read.\n");
    expect(err.text).not.toContain("\x1b");
    const lines = err.text.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^✓ read_thing notes\.md \d+ms$/);
    expect(lines[1]).toMatch(/^✗ write_thing out\.md denied \d+ms$/);
    expect(lines[2]).toContain("Permission denied: write_thing");
    expect(lines[3]).toMatch(/^── 2 turns · 3\.3k in \/ 52 out tokens · /);
  });

  test("skills loaded, a trimmed catalog and grants are each shown on a line of their own", () => {
    const err = new Sink();
    const r = createPrettyRenderer({ out: new Sink(), err });
    r.handle({ type: "skill_loaded", name: "pdf-forms", source: "project:.agent/skills", by: "model" });
    r.handle({ type: "skills_trimmed", budget: 800, listed: 3, shortened: ["a"], leftOut: ["b", "c"] });
    r.handle({ type: "permission_grant", plugin: "skills", rules: ["run_command(git:*)"], reason: "skill x lists allowed-tools", decision: "deny", by: "no terminal to ask" });
    r.dispose();
    expect(err.text.split("\n").filter(Boolean)).toEqual([
      "◆ skill pdf-forms loaded · project:.agent/skills",
      "◆ skill catalog over its 800-character budget: 1 shortened, 2 left out (b, c) · agent skills shows which",
      "◆ skills: run_command(git:*) not allowed for this session (skill x lists allowed-tools; no terminal to ask)",
    ]);
  });

  test("a terminal: the text streams, a spinner runs, colours are on unless NO_COLOR", () => {
    const out = new Sink(true);
    const err = new Sink(true);
    const r = createPrettyRenderer({ out, err });
    events.forEach(r.handle);
    r.dispose();
    expect(out.text).toBe("Reading.\nDone: notes read.\n");
    expect(err.text).toContain("Thinking…");
    expect(err.text).toContain("\x1b[32m✓\x1b[39m");
    expect(stripAnsi(err.text)).toContain("✓ read_thing notes.md");

    process.env.NO_COLOR = "1";
    const plain = new Sink(true);
    const r2 = createPrettyRenderer({ out: new Sink(true), err: plain });
    events.forEach(r2.handle);
    r2.dispose();
    expect(plain.text).not.toMatch(/\x1b\[\d+m/);
  });

  test("colour rules: NO_COLOR beats FORCE_COLOR beats the terminal check", () => {
    expect(useColor({ write: () => true, isTTY: true }, {})).toBe(true);
    expect(useColor({ write: () => true, isTTY: false }, {})).toBe(false);
    expect(useColor({ write: () => true, isTTY: false }, { FORCE_COLOR: "1" })).toBe(true);
    expect(useColor({ write: () => true, isTTY: true }, { NO_COLOR: "1", FORCE_COLOR: "1" })).toBe(false);
    expect(useColor({ write: () => true, isTTY: true }, { TERM: "dumb" })).toBe(false);
  });
});

test("json: one object with the outcome of every tool call", () => {
  const out = new Sink();
  const r = createJsonRenderer(out);
  events.forEach(r.handle);
  expect(out.text).toBe("");
  r.finish();
  expect(JSON.parse(out.text)).toMatchObject({
    type: "result",
    ok: true,
    reason: "end_turn",
    result: "Done: notes read.",
    turns: 2,
    toolCalls: [
      { name: "read_thing", outcome: "ok" },
      { name: "write_thing", outcome: "denied" },
    ],
    usage: { inputTokens: 3300, outputTokens: 52 },
  });
});

test("stream-json: one line per event, written as each arrives", () => {
  const out = new Sink();
  const r = createStreamJsonRenderer(out);
  for (const [i, e] of events.entries()) {
    r.handle(e);
    expect(out.text.split("\n").filter(Boolean)).toHaveLength(i + 1);
  }
  expect(out.text.split("\n").filter(Boolean).map((l) => JSON.parse(l))).toEqual(JSON.parse(JSON.stringify(events)));
});

test("on a terminal, escape sequences from the model or a tool are shown, not obeyed; piped output stays as written", () => {
  const evil = "ok\x1b[2K\x1b[1Ahidden";
  const out = new Sink(true);
  const err = new Sink(true);
  const r = createPrettyRenderer({ out, err, summary: false });
  r.handle({ type: "text_delta", text: `${evil}\n` });
  r.handle({ type: "tool_start", callId: "c1", name: "run_command", input: { command: evil }, risk: "execute", source: "tools" });
  r.handle({ type: "error", code: "E_X", message: `server says ${evil}` });
  r.dispose();
  expect(out.text).toContain("ok\\x1b[2K\\x1b[1Ahidden");
  expect(stripAnsi(err.text)).toContain("server says ok\\x1b[2K");
  expect(out.text + err.text).not.toContain("\x1b[2K\x1b[1A");
  const piped = new Sink(false);
  const r2 = createPrettyRenderer({ out: piped, err: new Sink(false), summary: false, streamText: true });
  r2.handle({ type: "text_delta", text: evil });
  r2.dispose();
  expect(piped.text).toBe(evil);
});
