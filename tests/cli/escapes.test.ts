/**
 * Everything printed is shown, never obeyed; the CLI's own stderr is redacted. From outside, as an
 * attacker: a hostile MCP stdio server (tests/cli/escapes/hostile-server.mjs) whose name, version,
 * tool descriptions, argument names, prompts, results and errors hold escape sequences (payload.mjs:
 * CSI, OSC title, OSC 8, BEL, CR, BS, C1 controls, bidi overrides, DEL), a plugin that fails to load
 * with them in its error, a skill folder named with them, and a command hook whose systemMessage holds
 * them. The built CLI runs under a pseudo-terminal (nothing raw reaches the terminal; the text is
 * still shown, as \x1b…) and piped (`agent call` hands a script the bytes as the server wrote them).
 * Then secrets: tokens in URLs' query strings, userinfo and an env secret's value in tool inputs and
 * errors, and in a hook's message, never reach stderr or the audit log. Needs `npm run build` first.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { printable } from "../../cli/render/_style.js";
import { startFake, type FakeServer, type Turn } from "../core/loop-helpers.js";
import { ATTEMPTS, ESC_PAYLOAD } from "./escapes/payload.mjs";
import { PtySession } from "./pty.js";
import { assertBuilt, cleanEnv, makeProject, runCli, type Project } from "./run-helpers.js";

const attempts = ATTEMPTS;
const payload = ESC_PAYLOAD;
const HERE = path.join(path.dirname(new URL(import.meta.url).pathname), "escapes");
/** How the payload reads on a terminal: every attempt as text. */
const SHOWN = printable(payload);

let project: Project;
let fake: FakeServer | undefined;
const ptys: PtySession[] = [];

/** A project with the hostile server (`evil`), a plugin that fails with the payload, a skill folder named with it, and the hook. */
async function hostileProject(extra: Record<string, unknown> = {}): Promise<Project> {
  const p = await makeProject({
    plugins: ["./tools.mjs", "./bad-plugin.mjs"],
    permissions: { allow: ["mcp__evil__*", "echo"] },
    hooks: { PreToolUse: [{ hooks: [{ type: "command", command: process.execPath, args: [path.join(HERE, "hook.mjs")] }] }] },
    ...extra,
  });
  // The payload is in the server's argv too (`agent mcp list` shows the command line).
  writeFileSync(path.join(p.dir, ".mcp.json"), JSON.stringify({ mcpServers: { evil: { command: process.execPath, args: [path.join(HERE, "hostile-server.mjs"), `--tag=${payload}`] } } }));
  writeFileSync(path.join(p.dir, "bad-plugin.mjs"), `throw new Error(${JSON.stringify(`plugin broke ${payload}`)});\n`);
  const skill = path.join(p.dir, ".agent", "skills", `s${payload.replace(/\//g, "_")}`);
  mkdirSync(skill, { recursive: true });
  writeFileSync(path.join(skill, "SKILL.md"), '---\nname: "evil\\e[2J"\ndescription: "d \\e]0;pwned\\a"\n---\nbody\n');
  return p;
}

const env = (extra: Record<string, string> = {}) => cleanEnv({ AGENT_TRUST: "1", ...extra }, project.dir);

/** Run the CLI under a pseudo-terminal until it exits; the terminal's output, line ends as written. */
async function onTerminal(args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const pty = new PtySession(project.dir, env(extra), args);
  ptys.push(pty);
  const code = await pty.exited;
  return { code, out: pty.output.replace(/\r\n/g, "\n") };
}

/** Nothing a terminal obeys: no ESC, BEL, BS, DEL, C1 control or bidi control; a CR only as part of a line end. */
function expectInert(out: string): void {
  // eslint-disable-next-line no-control-regex
  const raw = out.match(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g) ?? [];
  expect(raw.map((c) => printable(c))).toEqual([]);
}

beforeAll(async () => {
  assertBuilt();
  project = await hostileProject();
});
afterAll(async () => {
  for (const p of ptys) p.kill();
  await Promise.all(ptys.map((p) => p.exited));
  await fake?.close();
  await project?.remove();
});

describe("on a terminal, what servers, plugins, skills and hooks say is shown, not obeyed", () => {
  // Each command, and some of what it must show (as text) of what the attacker wrote.
  const CASES: { args: string[]; code?: number; shows: string[] }[] = [
    { args: ["tools"], shows: ["[MCP:evil] Shouts \\x1b[2J \\x1b[1A\\x1b[2K \\x1b]0;pwned\\x07", "plugin broke \\x1b[2J"] },
    { args: ["call", "mcp__evil__shout", "{}"], shows: [`loud ${SHOWN} end`, `hook PreToolUse says ${SHOWN}`] },
    { args: ["call", "mcp__evil__fail", "{}"], code: 1, shows: [`failed ${SHOWN} end`] },
    { args: ["call", "mcp__evil__throw", "{}"], code: 1, shows: ["threw \\x1b[2J \\x1b[1A\\x1b[2K \\x1b]0;pwned\\x07"] },
    { args: ["mcp", "get", "evil"], shows: ["server:  evil \\x1b[2J", "6.6.6 \\x1b[2J", "input: arg\\x1b[2J", "Prompt \\x1b[2J"] },
    { args: ["mcp", "list"], shows: ["\\x9b2J \\x9d0;c1title\\x9c \\u202egnp.exe"] },
    // reportError: the message quotes what was typed.
    { args: ["mcp", "get", "nope\x1b]0;pwned\x07\x9b2J"], code: 2, shows: ['no MCP server named "nope\\x1b]0;pwned\\x07\\x9b2J"'] },
    { args: ["commands"], shows: ["[MCP:evil] Prompt \\x1b[2J"] },
    { args: ["skills"], shows: ['name "evil\\x1b[2J" must be'] },
    { args: ["plugins"], shows: [`plugin broke ${SHOWN}`] },
    { args: ["doctor"], code: 1, shows: [`plugin broke ${SHOWN}`] },
    // JSON escapes the C0 controls itself; on a terminal the C1 controls and bidi overrides are escaped too (the same JSON value).
    { args: ["tools", "--json"], shows: ["Shouts \\u001b[2J", "\\u009b2J", "\\u202egnp.exe"] },
    { args: ["call", "mcp__evil__shout", "{}", "--json"], shows: ['"output": "loud \\u001b[2J', "\\u009d0;c1title\\u009c"] },
    { args: ["mcp", "get", "evil", "--json"], shows: ['"version": "6.6.6 \\u001b[2J'] },
  ];

  test.each(CASES)("agent $args", async ({ args, code = 0, shows }) => {
    const r = await onTerminal(args);
    expectInert(r.out);
    for (const s of shows) expect(r.out).toContain(s);
    expect(r.code).toBe(code);
  });

  let called: Promise<{ code: number | null; out: string }> | undefined;
  test.each(attempts)("%s: agent call's output shows it as text", async (_what, bytes) => {
    const r = await (called ??= onTerminal(["call", "mcp__evil__shout", "{}"]));
    expect(r.out).not.toContain(bytes);
    expect(r.out).toContain(printable(bytes));
    expect(printable(bytes)).not.toBe(bytes);
  });
});

describe("piped, stdout is exactly what the tool returned", () => {
  test("agent call: the server's bytes, escapes and all; its JSON parses back to them", async () => {
    const r = await runCli(["call", "mcp__evil__shout", "{}"], { cwd: project.dir, env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`loud ${payload} end\n`);
    const j = await runCli(["call", "mcp__evil__shout", "{}", "--json"], { cwd: project.dir, env: env() });
    expect(JSON.parse(j.stdout).output).toBe(`loud ${payload} end`);
    // JSON.stringify's own escapes, nothing more: ESC is \u001b, the C1 controls stay as they are.
    expect(j.stdout).toContain("loud \\u001b[2J");
    expect(j.stdout).toContain("\x9b2J");
  });

  test("agent tools: the listing as the server wrote it", async () => {
    const r = await runCli(["tools"], { cwd: project.dir, env: env() });
    expect(r.stdout).toContain("[MCP:evil] Shouts \x1b[2J");
  });
});

describe("agent -p on a terminal: tool lines, errors and the answer are shown, not obeyed", () => {
  test("a call whose input, result and error hold the payload, and an answer that does", async () => {
    fake = await startFake("openai", [
      {
        toolCalls: [
          { id: "c1", name: "mcp__evil__shout", arguments: { text: `in ${payload}` } },
          { id: "c2", name: "mcp__evil__fail", arguments: {} },
        ],
      },
      { text: `answer ${payload} done` },
    ] satisfies Turn[]);
    const dir = project.dir;
    writeFileSync(path.join(dir, ".agentrc.json"), JSON.stringify({ ...JSON.parse(readFileSync(path.join(dir, ".agentrc.json"), "utf8")), model: "openai:gpt-fake", providers: { openai: { baseURL: fake.baseURL, apiKey: "test-key" } } }));
    const r = await onTerminal(["-p", "go"]);
    expect(r.code).toBe(0);
    // The renderer's own drawing (the spinner's \r and erase-line, the Markdown preview's cursor moves) aside, nothing raw.
    for (const [, bytes] of attempts) expect(r.out).not.toContain(bytes);
    // eslint-disable-next-line no-control-regex
    expectInert(r.out.replace(/\r?\x1b\[[0-9]*[AGJK]/g, "").replace(/\r/g, ""));
    expect(r.out).toContain("mcp__evil__shout in \\x1b[2J");
    expect(r.out).toContain("failed \\x1b[2J");
    expect(r.out).toContain("answer \\x1b[2J");
    expect(r.out).toContain("hook PreToolUse says \\x1b[2J");
  });
});

describe("the CLI's stderr is redacted as the audit log is; so is the audit log", () => {
  const ENV_SECRET = "envsecret-ABCDEF123456";
  // What a tool call's input holds, and the secret in it that must never be seen.
  const SECRETS: [string, string, string][] = [
    ["a query token", "https://api.example.com/v1?token=SECRETq1tok&page=2", "SECRETq1tok"],
    ["an api_key parameter", "curl https://maps.example.com/x?q=1&api_key=SECRETq2key", "SECRETq2key"],
    ["an access_token in the fragment", "https://app.example.com/cb#access_token=SECRETq3frag&state=s", "SECRETq3frag"],
    ["a signed URL's sig", "https://blob.example.net/c/f?sv=2020&sig=SECRETq4sig", "SECRETq4sig"],
    ["an S3 signature", "https://s3.example.com/b/k?X-Amz-Signature=SECRETq5amz", "SECRETq5amz"],
    ["a key parameter", "https://api.example.com/v1?key=SECRETq6key", "SECRETq6key"],
    ["a password parameter", "https://db.example.com/login?user=a&password=SECRETq7pw", "SECRETq7pw"],
    ["a client_secret", "https://idp.example.com/token?client_id=a&client_secret=SECRETq8cs", "SECRETq8cs"],
    ["userinfo with a password", "git clone https://bob:SECRETu1pass@git.example.com/r", "SECRETu1pass"],
    ["a token as the user", "git clone https://SECRETu2tok9@github.com/o/r", "SECRETu2tok9"],
    ["an env secret's value", `deploy with ${ENV_SECRET} now`, ENV_SECRET],
  ];

  test.each(["piped", "terminal"] as const)("agent -p (%s): tool lines (input and error) and hook messages", async (how) => {
    const turns: Turn[] = [
      {
        toolCalls: SECRETS.flatMap(([, text], i) => [
          { id: `e${i}`, name: "echo", arguments: { text } },
          { id: `l${i}`, name: "mcp__evil__leak", arguments: { text } },
        ]),
      },
      { text: "done" },
    ];
    await fake?.close();
    fake = await startFake("openai", turns);
    const p = await hostileProject({ model: "openai:gpt-fake", providers: { openai: { baseURL: fake.baseURL, apiKey: "test-key" } } });
    try {
      const extra = { MY_SERVICE_TOKEN: ENV_SECRET, HOOK_PAYLOAD: "SECRETh1hook" };
      let stderr: string;
      if (how === "piped") {
        const r = await runCli(["-p", "go"], { cwd: p.dir, env: cleanEnv({ AGENT_TRUST: "1", ...extra }, p.dir) });
        expect(r.code).toBe(0);
        expect(r.stdout).toBe("done\n");
        stderr = r.stderr;
      } else {
        const pty = new PtySession(p.dir, cleanEnv({ AGENT_TRUST: "1", ...extra }, p.dir), ["-p", "go"]);
        ptys.push(pty);
        expect(await pty.exited).toBe(0);
        stderr = pty.text;
      }
      for (const [, , secret] of [...SECRETS, ["", "", "SECRETh1hook"]]) expect(stderr).not.toContain(secret);
      expect(stderr).not.toContain("SECRET");
      // Still shown, and said to be redacted.
      expect(stderr).toContain("echo https://api.example.com/v1?token=[REDACTED]&page=2");
      expect(stderr).toContain("[REDACTED:MY_SERVICE_TOKEN]");
      expect(stderr).toContain("could not fetch git clone https://bob:[REDACTED]@git.example.com/r");
      expect(stderr).toContain("access_token=[REDACTED]&x=1");
      const audit = readFileSync(path.join(p.dir, ".agent", "audit.jsonl"), "utf8");
      expect(audit).toContain("mcp__evil__leak");
      expect(audit).not.toContain("SECRET");
      expect(audit).not.toContain(ENV_SECRET);
    } finally {
      await p.remove();
    }
  });

  test("agent call: the tool's error on stderr and the hook's message are redacted; the audit log too", async () => {
    const text = SECRETS.map(([, t]) => t).join(" ");
    const r = await runCli(["call", "mcp__evil__leak", JSON.stringify({ text })], { cwd: project.dir, env: env({ MY_SERVICE_TOKEN: ENV_SECRET, HOOK_PAYLOAD: "SECRETh2hook" }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("could not fetch https://api.example.com/v1?token=[REDACTED]&page=2");
    expect(r.stderr).not.toContain("SECRET");
    expect(r.stderr).not.toContain(ENV_SECRET);
    expect(readFileSync(path.join(project.dir, ".agent", "audit.jsonl"), "utf8")).not.toContain("SECRET");
  });
});
