#!/usr/bin/env node
/**
 * A long scripted conversation against the fake OpenAI server with a small context window: 40 prompts,
 * each answered after a tool call whose result is ~2 000 characters, in one session. With compaction
 * (the default) the run completes and every request stays under the window; the baseline, measured in
 * the same run, is the same conversation with compaction off (`compaction.auto: false`): its requests
 * grow past the window (a real API would refuse them). Sizes are the fake server's token estimate of
 * each request body (characters / 4). Prints the largest request against the window for both, the
 * compactions, the time, and the ratio.
 * Usage: node bench/long-conversation.mjs [prompts=40] [window=8000]   (after `npm run build`)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INDEX = path.join(ROOT, "dist", "index.js");
if (!existsSync(INDEX)) {
  console.error(`bench/long-conversation: ${INDEX} is missing; run "npm run build" first.`);
  process.exit(2);
}
const { createHost } = await import(pathToFileURL(INDEX).href);
const { builtinPlugins } = await import(pathToFileURL(path.join(ROOT, "dist", "builtins.js")).href);
const { startFakeOpenAI } = await import(pathToFileURL(path.join(ROOT, "tests", "fixtures", "models", "fake-openai.mjs")).href);

const prompts = Number(process.argv[2] ?? 40);
const window = Number(process.argv[3] ?? 8000);

const lookup = {
  name: "lookup",
  description: "Look a topic up in the project notes",
  risk: "read",
  inputSchema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
  run: ({ topic }) => `Notes on ${topic}:\n${Array.from({ length: 40 }, (_, i) => `- ${topic} fact ${i}: the value is ${(i * 7919) % 1000}.`).join("\n")}`,
};

const isSummary = (body) => String(body.messages[0]?.content ?? "").startsWith("You summarise a conversation");
const lastRole = (body) => body.messages.at(-1)?.role;

/** Each prompt: a tool call first, then an answer once the result is in; summary requests answered apart. */
function turn(body) {
  if (isSummary(body)) return { text: "Summary: the user asked about topics one by one; each was looked up with lookup and answered. Open: nothing." };
  if (lastRole(body) === "tool") return { text: "Here is what the notes say, in short: the values are listed above." };
  const n = body.messages.filter((m) => m.role === "user").length;
  return { text: "", toolCalls: [{ id: `call_${n}_${body.messages.length}`, name: "lookup", arguments: { topic: `topic ${n}` } }] };
}

async function conversation(config) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "agent-bench-long-"));
  mkdirSync(path.join(dir, ".git"));
  const srv = await startFakeOpenAI(Array.from({ length: prompts * 3 + 50 }, () => turn));
  const host = await createHost({
    cwd: dir,
    userConfigDir: false,
    builtins: builtinPlugins.filter((b) => ["openai", "sessions", "compaction", "commands"].includes(b.name)),
    plugins: [{ name: "bench", tools: [lookup] }],
    config: { model: "openai:gpt-fake", providers: { openai: { baseURL: srv.baseURL, apiKey: "bench" } }, ...config },
  });
  let compactions = 0;
  host.on((e) => {
    if (e.type === "compaction") compactions++;
  });
  const started = performance.now();
  let failed = 0;
  try {
    for (let i = 1; i <= prompts; i++) {
      const r = await host.run(`Tell me about topic ${i}`);
      if (!r.ok) failed++;
    }
  } finally {
    await host.close();
    await srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const sizes = srv.requests.filter((r) => !isSummary(r.body)).map((r) => Math.ceil(JSON.stringify(r.body).length / 4));
  return { ms: performance.now() - started, requests: sizes.length, max: Math.max(...sizes), over: sizes.filter((s) => s > window).length, compactions, failed };
}

const withCompaction = await conversation({ contextWindow: window });
const baseline = await conversation({ contextWindow: window, compaction: { auto: false } });

const fmt = (r) =>
  `${r.requests} requests, largest ${r.max} tokens (${(r.max / window).toFixed(2)}x the window), ${r.over} over the window, ${r.compactions} compactions, ${r.failed} failed runs, ${Math.round(r.ms)} ms`;
console.log(`long conversation: ${prompts} prompts with a tool call each, context window ${window} tokens`);
console.log(`  compaction on (default): ${fmt(withCompaction)}`);
console.log(`  baseline, compaction off: ${fmt(baseline)}`);
console.log(`  largest request, on / off: ${(withCompaction.max / baseline.max).toFixed(2)}x`);
const ok = withCompaction.over === 0 && withCompaction.failed === 0;
console.log(ok ? "  goal met: the run completes and every request stays under the window" : "  GOAL MISSED: a request went over the window or a run failed");
process.exitCode = ok ? 0 : 1;
