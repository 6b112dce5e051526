/**
 * Issue 26 item 7 in a real pseudo-terminal, read back through a terminal emulator (xterm.js, which
 * reflows soft-wrapped rows on a resize as most terminals do): a resize in the middle of a streamed
 * answer and at the idle prompt leaves no torn or doubled lines, and a table wider than the terminal
 * is fitted to it. Needs `npm run build` first.
 */
import stringWidth from "string-width";
import { afterEach, beforeAll, expect, test } from "vitest";
import { startFake, type FakeServer, type Turn } from "../core/loop-helpers.js";
import { PtySession } from "./pty.js";
import { assertBuilt, cleanEnv, makeProject, type Project } from "./run-helpers.js";

beforeAll(assertBuilt);

let srv: FakeServer | undefined;
let project: Project | undefined;
let pty: PtySession | undefined;
afterEach(async () => {
  if (process.env.PTY_DEBUG) console.log(pty?.output.slice(-4000));
  pty?.kill();
  await pty?.exited;
  await srv?.close();
  await project?.remove();
  srv = project = pty = undefined;
});

async function start(script: Turn[], cols?: number): Promise<PtySession> {
  srv = await startFake("openai", script);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  pty = new PtySession(project.dir, cleanEnv({}, project.dir), [], { cols });
  await pty.waitFor("Type a task.");
  await pty.prompt();
  return pty;
}

const words = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `word${String(from + i).padStart(2, "0")}`).join(" ");
const count = (lines: string[], needle: string) => lines.join("\n").split(needle).length - 1;

test("a resize from 120 to 50 columns mid-answer: printed lines stay, the rest is drawn at the new width, nothing torn or doubled", async () => {
  let resume!: () => void;
  const gate = new Promise<void>((r) => (resume = r));
  // Events: the role chunk, then one per text delta; the stream waits after the first half of the long paragraph.
  const s = await start([
    { text: ["The answer starts here.\n\n", `${words(1, 20)} `, `${words(21, 40)}\n\n`, "The end."], pauseAfter: 3, resume: gate },
  ]);
  s.type("Talk at length\r");
  await s.waitFor("word20");
  s.resize(50);
  // The part still being written is drawn again at the new width: the resize was seen.
  await s.waitFor("word20");
  resume();
  await s.waitFor("The end.");
  await s.prompt();

  const { rows, lines } = await s.terminal();
  if (process.env.PTY_DEBUG) console.log(rows.join("\n"));
  expect(count(lines, "The answer starts here.")).toBe(1);
  expect(count(lines, "The end.")).toBe(1);
  for (let i = 1; i <= 40; i++) expect(count(lines, `word${String(i).padStart(2, "0")}`), `word${i}`).toBe(1);
  // The paragraph was rendered after the resize: rows of whole words (not soft-wrapped), each within 50 columns.
  const para = lines.filter((l) => l.includes("word"));
  expect(para.length).toBeGreaterThanOrEqual(6);
  for (const l of para) {
    expect(l).toMatch(/^(word\d\d ?)+$/);
    expect(l.length).toBeLessThanOrEqual(50);
  }
  expect(lines.slice(lines.indexOf("The answer starts here."))).toEqual(["The answer starts here.", "", ...para, "", "The end.", expect.stringMatching(/^── 1 turn/), "", "> "]);
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("a resize at the idle prompt redraws the typed line once, at the new width", async () => {
  const s = await start(["Hi."]);
  const typed = `${words(1, 12)} end`;
  s.type(typed);
  await s.waitFor("end");
  s.resize(40);
  // readline draws the line again on a resize.
  await s.waitFor("> word01");
  s.type("!");
  await s.waitFor("!");
  const { rows, lines } = await s.terminal();
  if (process.env.PTY_DEBUG) console.log(rows.join("\n"));
  expect(count(lines, "word01")).toBe(1);
  expect(lines[lines.length - 1]).toBe(`> ${typed}!`);
  expect(lines[lines.length - 2]).not.toContain("word");
  for (const r of rows.slice(-3)) expect(r.length).toBeLessThanOrEqual(40);
  s.type("\x15/exit\r");
  expect(await s.exited).toBe(0);
});

test("a table wider than the terminal is fitted to it: borders line up, cells wrap at words", async () => {
  const table = [
    "Here is the comparison:",
    "",
    "| Option | What it does | Default |",
    "|---|---|---|",
    "| --output-format | Chooses how the answer is printed: text for people, json or stream-json for programs | text |",
    "| --model | 使うモデルを選びます。プロバイダー名なしでも指定できます | the configured one |",
    "",
    "That is all.",
  ].join("\n");
  const s = await start([table], 60);
  s.type("Compare the options\r");
  await s.waitFor("That is all.");
  await s.prompt();
  const { rows } = await s.terminal();
  if (process.env.PTY_DEBUG) console.log(rows.join("\n"));
  const drawn = rows.slice(rows.findIndex((r) => r.startsWith("┌")), rows.findIndex((r) => r.startsWith("└")) + 1);
  expect(drawn.length).toBeGreaterThan(6);
  // Every row of the table within the 60 columns, all the same width, the borders at the same columns.
  const width = stringWidth(drawn[0]);
  expect(width).toBeLessThanOrEqual(60);
  const borders = (r: string) => [...r].flatMap((ch, i, all) => ("│┼┬┴├┤┌┐└┘".includes(ch) ? [stringWidth(all.slice(0, i).join(""))] : []));
  for (const r of drawn) {
    expect(stringWidth(r), r).toBe(width);
    expect(borders(r), r).toEqual(borders(drawn[0]));
  }
  const cell = (col: number) => drawn.map((r) => r.split("│")[col]?.trim() ?? "").filter(Boolean).join(" ");
  expect(cell(2)).toContain("Chooses how the answer is printed: text for people, json or stream-json for programs");
  expect(cell(2).replace(/ /g, "")).toContain("使うモデルを選びます。プロバイダー名なしでも指定できます");
  expect(cell(3)).toContain("the configured one");
  s.type("/exit\r");
  expect(await s.exited).toBe(0);
});

test("TERM=dumb: a resize mid-answer still writes plain lines, no cursor controls", async () => {
  let resume!: () => void;
  const gate = new Promise<void>((r) => (resume = r));
  srv = await startFake("openai", [{ text: ["Intro.\n\n", "First part of the answer ", "and the rest of it.\n\nDone."], pauseAfter: 3, resume: gate }]);
  project = await makeProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "test-key" } } });
  const s = (pty = new PtySession(project.dir, cleanEnv({}, project.dir), ["-p", "Answer"], { term: "dumb" }));
  // Without cursor controls a block shows once complete: the first one is there, the second on its way.
  await s.waitFor("Intro.");
  s.resize(50);
  resume();
  expect(await s.exited).toBe(0);
  expect(s.text).toContain("First part of the answer and the rest of it.");
  // eslint-disable-next-line no-control-regex
  expect(s.output).not.toMatch(/\x1b\[(K|0J|\d*A|\?2004)/);
});
