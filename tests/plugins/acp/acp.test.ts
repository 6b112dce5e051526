/**
 * `agent acp` driven by a plain ACP JSON-RPC client over real stdio (newline-delimited JSON), against a
 * fake OpenAI server: initialize, a session, a prompt whose tool call needs the editor's permission
 * (session/request_permission), the answer streamed as session/update, end_turn; a reject; set_mode;
 * session/load replaying a saved conversation; cancel.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { CLI, WAIT_FOR_SERVERS, assertBuilt, cleanEnv, fakeOpenAiProject } from "../../cli/run-helpers.js";
import { REPO_ROOT as REPO } from "../../helpers/paths.js";

vi.setConfig({ testTimeout: 60_000 });
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGTERM");
});

type Msg = { jsonrpc: "2.0"; id?: number | string; method?: string; params?: any; result?: any; error?: any };

/** A bare ACP client: requests with ids, every message kept, requests from the agent answered by `answer` (a throw is an error answer). */
function acpClient(cwd: string, home: string, args: string[] = [], answer: (m: Msg) => unknown = () => ({})) {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, "acp", "--model", "openai:gpt-fake", ...args], { cwd, env: cleanEnv({}, home), stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  const seen: Msg[] = [];
  const waiting = new Map<number, (m: Msg) => void>();
  let buffer = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    buffer += d;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line) as Msg;
      seen.push(m);
      if (m.method && m.id !== undefined) child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: m.id, ...reply(m) })}\n`);
      else if (m.id !== undefined) waiting.get(m.id as number)?.(m);
    }
  });
  // What `answer` throws is the client's JSON-RPC error (a file it does not have: resource not found).
  const reply = (m: Msg) => {
    try {
      return { result: answer(m) };
    } catch (err) {
      return { error: { code: -32002, message: (err as Error).message } };
    }
  };
  let next = 0;
  return {
    seen,
    stderr: () => stderr,
    child,
    request(method: string, params: unknown): Promise<Msg> {
      const id = ++next;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    notify(method: string, params: unknown) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method, params })}\n`);
    },
    updates: (sessionId: string) => seen.filter((m) => m.method === "session/update" && m.params.sessionId === sessionId).map((m) => m.params.update),
  };
}

const allowOnce = (m: Msg) => (m.method === "session/request_permission" ? { outcome: { outcome: "selected", optionId: "allow_once" } } : {});

describe("agent acp", () => {
  test("initialize, session/new, a prompt whose write is permitted in the editor, streamed answer, end_turn", async () => {
    const { project } = await fakeOpenAiProject(
      [{ text: "Writing.", toolCalls: [{ id: "call_w1", name: "write_file", arguments: { path: "out.txt", content: "from acp\n" } }] }, { text: "Wrote out.txt." }],
      { model: "openai:gpt-fake" },
    );
    const c = acpClient(project.dir, project.dir, [], allowOnce);
    const init = await c.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
    expect(init.result).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: true, mcpCapabilities: { http: true } }, authMethods: [] });

    const created = await c.request("session/new", { cwd: project.dir, mcpServers: [] });
    const sessionId = created.result.sessionId as string;
    expect((await c.request("session/new", { cwd: "relative/dir", mcpServers: [] })).error).toMatchObject({ code: -32602, message: expect.stringContaining("absolute path") });
    expect((await c.request("session/new", { cwd: path.join(project.dir, "missing"), mcpServers: [] })).error).toMatchObject({ code: -32602, message: expect.stringContaining("is not a folder") });
    expect(created.result.modes).toMatchObject({ currentModeId: "default", availableModes: expect.arrayContaining([expect.objectContaining({ id: "plan" })]) });

    const done = await c.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write out.txt" }] });
    expect(done.result).toEqual({ stopReason: "end_turn" });
    expect(readFileSync(path.join(project.dir, "out.txt"), "utf8")).toBe("from acp\n");

    const asked = c.seen.find((m) => m.method === "session/request_permission");
    expect(asked?.params).toMatchObject({ sessionId, toolCall: { toolCallId: "call_w1", kind: "edit" }, options: expect.arrayContaining([expect.objectContaining({ kind: "allow_once" }), expect.objectContaining({ kind: "allow_always" }), expect.objectContaining({ kind: "reject_once" })]) });
    const updates = c.updates(sessionId);
    const call = updates.find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({ toolCallId: "call_w1", kind: "edit", status: "pending", locations: [{ path: path.join(project.dir, "out.txt") }], content: [{ type: "diff", newText: "from acp\n" }] });
    expect(updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_w1").map((u) => u.status)).toEqual(["in_progress", "completed"]);
    // The call's output is shown with its end.
    expect(updates.find((u) => u.toolCallId === "call_w1" && u.status === "completed").content).toEqual([{ type: "content", content: { type: "text", text: expect.stringContaining("out.txt") } }]);
    const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
    expect(text).toContain("Wrote out.txt.");
    // The request for permission came after the tool call was announced, and the answer before the end.
    const order = c.seen.map((m) => (m.method === "session/request_permission" ? "ask" : m.params?.update?.sessionUpdate)).filter(Boolean);
    expect(order.indexOf("tool_call")).toBeLessThan(order.indexOf("ask"));
    // A client that does not offer its files is never asked for them.
    expect(c.seen.filter((m) => m.method?.startsWith("fs/"))).toEqual([]);
  });

  test("a client that offers fs/*: read_file sees the editor's unsaved buffer, edit_file edits it, writes go through the editor", async () => {
    const { srv, project } = await fakeOpenAiProject(
      [
        { toolCalls: [{ id: "call_f1", name: "read_file", arguments: { path: "notes.txt" } }] },
        { toolCalls: [{ id: "call_f2", name: "edit_file", arguments: { path: "notes.txt", old_string: "unsaved", new_string: "edited" } }] },
        { toolCalls: [{ id: "call_f3", name: "write_file", arguments: { path: "new.txt", content: "fresh\n" } }] },
        { text: "Done." },
      ],
      { model: "openai:gpt-fake" },
    );
    const notes = path.join(project.dir, "notes.txt");
    writeFileSync(notes, "on disk\n");
    // The editor: notes.txt is open with changes not saved; other files are read from disk; a write sets the buffer and saves it.
    const buffers = new Map<string, string>([[notes, "unsaved line\nsecond\n"]]);
    const editor = (m: Msg) => {
      if (m.method === "fs/read_text_file") return { content: buffers.get(m.params.path) ?? readFileSync(m.params.path, "utf8") };
      if (m.method === "fs/write_text_file") {
        buffers.set(m.params.path, m.params.content);
        writeFileSync(m.params.path, m.params.content);
        return null;
      }
      return allowOnce(m);
    };
    const c = acpClient(project.dir, project.dir, [], editor);
    await c.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false } });
    const sessionId = (await c.request("session/new", { cwd: project.dir, mcpServers: [] })).result.sessionId;
    expect((await c.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "tidy the notes" }] })).result).toEqual({ stopReason: "end_turn" });

    const toolResult = (i: number) => srv.requests[i].body.messages.filter((m: any) => m.role === "tool").at(-1).content as string;
    // read_file: the buffer, numbered as read_file numbers lines, not the disk's text.
    expect(toolResult(1)).toContain("1\tunsaved line\n2\tsecond");
    expect(toolResult(1)).toContain("not saved to disk");
    expect(toolResult(1)).not.toContain("on disk");
    // edit_file: applied to the buffer's text (the disk never had "unsaved"), and written through the editor.
    expect(toolResult(2)).toContain("Edited notes.txt: 1 replacement");
    const writes = c.seen.filter((m) => m.method === "fs/write_text_file").map((m) => m.params);
    expect(writes).toEqual([
      { sessionId, path: notes, content: "edited line\nsecond\n" },
      { sessionId, path: path.join(project.dir, "new.txt"), content: "fresh\n" },
    ]);
    expect(readFileSync(notes, "utf8")).toBe("edited line\nsecond\n");
    // The edit's diff, shown before it is asked about, is of the editor's text.
    expect(c.updates(sessionId).find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call_f2")).toMatchObject({ content: [{ type: "diff", path: notes, oldText: "unsaved line\nsecond\n", newText: "edited line\nsecond\n" }] });
    const order = c.seen.map((m) => (m.method === "session/request_permission" ? `ask ${m.params.toolCall.toolCallId}` : m.params?.update?.sessionUpdate === "tool_call" ? `call ${m.params.update.toolCallId}` : undefined)).filter(Boolean);
    expect(order.indexOf("call call_f2")).toBeLessThan(order.indexOf("ask call_f2"));
    expect(c.seen.filter((m) => m.method === "fs/read_text_file").every((m) => m.params.sessionId === sessionId && path.isAbsolute(m.params.path))).toBe(true);
  });

  test("a rejected permission fails the tool call and the run still ends; set_mode bypass lets the next write run unasked", async () => {
    const { project } = await fakeOpenAiProject(
      [
        { toolCalls: [{ id: "call_r1", name: "write_file", arguments: { path: "no.txt", content: "x" } }] },
        { text: "It was refused." },
        { toolCalls: [{ id: "call_r2", name: "write_file", arguments: { path: "yes.txt", content: "y" } }] },
        { text: "Done." },
      ],
      { model: "openai:gpt-fake" },
    );
    const c = acpClient(project.dir, project.dir, [], (m) => (m.method === "session/request_permission" ? { outcome: { outcome: "selected", optionId: "deny" } } : {}));
    await c.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const sessionId = (await c.request("session/new", { cwd: project.dir, mcpServers: [] })).result.sessionId;
    expect((await c.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "try" }] })).result).toEqual({ stopReason: "end_turn" });
    expect(existsSync(path.join(project.dir, "no.txt"))).toBe(false);
    expect(c.updates(sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_r1")).toMatchObject({ status: "failed" });

    expect((await c.request("session/set_mode", { sessionId, modeId: "bypass" })).result).toEqual({});
    expect((await c.request("session/set_mode", { sessionId, modeId: "nonsense" })).error).toBeDefined();
    const asks = c.seen.filter((m) => m.method === "session/request_permission").length;
    expect((await c.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })).result).toEqual({ stopReason: "end_turn" });
    expect(readFileSync(path.join(project.dir, "yes.txt"), "utf8")).toBe("y");
    expect(c.seen.filter((m) => m.method === "session/request_permission").length).toBe(asks);
  });

  test("session/load replays the saved conversation and continues it", async () => {
    const { srv, project } = await fakeOpenAiProject([{ text: "First answer." }, { text: "Second answer." }], { model: "openai:gpt-fake" });
    const first = acpClient(project.dir, project.dir);
    await first.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const sessionId = (await first.request("session/new", { cwd: project.dir, mcpServers: [] })).result.sessionId;
    await first.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello there" }] });
    first.child.stdin.end();
    await new Promise((r) => first.child.once("exit", r));

    const second = acpClient(project.dir, project.dir);
    await second.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const loaded = await second.request("session/load", { sessionId, cwd: project.dir, mcpServers: [] });
    expect(loaded.error).toBeUndefined();
    const replayed = second.updates(sessionId);
    expect(replayed[0]).toMatchObject({ sessionUpdate: "user_message_chunk", content: { text: "hello there" } });
    expect(replayed.some((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text === "First answer.")).toBe(true);
    expect((await second.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "more" }] })).result).toEqual({ stopReason: "end_turn" });
    // The model saw the earlier turn: the conversation continued.
    expect(JSON.stringify(srv.requests.at(-1)?.body.messages)).toContain("hello there");
    expect((await second.request("session/load", { sessionId: "no-such-session", cwd: project.dir, mcpServers: [] })).error).toBeDefined();
  });

  test("the editor's MCP servers join the session's registry and their calls pass the gate", async () => {
    const memory = path.join(REPO, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    const { srv, project } = await fakeOpenAiProject(
      [{ toolCalls: [{ id: "call_m1", name: "mcp__mem__read_graph", arguments: {} }] }, { text: "The graph is empty." }],
      { model: "openai:gpt-fake", permissions: { allow: ["mcp__mem__read_graph"] }, tools: WAIT_FOR_SERVERS },
    );
    const c = acpClient(project.dir, project.dir);
    await c.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const created = await c.request("session/new", { cwd: project.dir, mcpServers: [{ name: "mem", command: process.execPath, args: [memory], env: [{ name: "MEMORY_FILE_PATH", value: path.join(project.dir, "memory.jsonl") }] }] });
    const sessionId = created.result.sessionId;
    expect((await c.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read the graph" }] })).result).toEqual({ stopReason: "end_turn" });
    // The model was offered the editor's server's tools, and the call ran through the gate.
    expect(JSON.stringify(srv.requests[0].body.tools)).toContain("mcp__mem__read_graph");
    expect(c.updates(sessionId).filter((u) => u.toolCallId === "call_m1").map((u) => u.status)).toEqual(["pending", "completed"]);
    const audit = readFileSync(path.join(project.dir, ".agent/audit.jsonl"), "utf8");
    expect(audit).toContain('"name":"mcp__mem__read_graph"');
  });

  test("session/cancel ends a running prompt with cancelled", async () => {
    const { srv, project } = await fakeOpenAiProject([{ text: "slow", stallAfter: 1 }], { model: "openai:gpt-fake" });
    const c = acpClient(project.dir, project.dir);
    await c.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const sessionId = (await c.request("session/new", { cwd: project.dir, mcpServers: [] })).result.sessionId;
    const running = c.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    // The model request is out (and its stream stalls): the prompt is running.
    await vi.waitFor(() => expect(srv.requests.length).toBe(1), { timeout: 30_000 });
    c.notify("session/cancel", { sessionId });
    expect((await running).result).toEqual({ stopReason: "cancelled" });
  });
});
