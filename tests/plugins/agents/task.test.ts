/**
 * The Done-when test of subagents: a scripted model drives a parent and a subagent turn by turn. The task
 * tool is offered with the agent's description; the subagent's requests carry its own system prompt, a
 * fresh context and only its tools; its result reaches the parent; a deny rule and a command hook apply
 * inside it; a tool outside its list is refused; the audit names the agent; SubagentStop fires.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, test, vi } from "vitest";
import type { ModelMessage } from "../../../core/index.js";
import { closeHosts } from "../../helpers/host.js";
import { cleanupTemp, tempProject } from "../../helpers/project.js";
import { bash, readLog } from "../hooks/helpers.js";
import { agentFile, agentsHost } from "./helpers.js";

vi.setConfig({ testTimeout: 20_000 });
afterEach(closeHosts);
afterAll(cleanupTemp);

const REVIEWER = agentFile({ name: "reviewer", description: "Reviews code for bugs. Use after a change.", tools: "Read, Grep" }, "You are the reviewer. Report bugs only.");
const toolResults = (messages: ModelMessage[]) => messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content);

describe("the task tool runs a subagent through the same gate", () => {
  test("parent → subagent → parent, turn by turn", async () => {
    const project = tempProject({ ".claude/agents/reviewer.md": REVIEWER, "a.txt": "const a = 1;\n", "secret.txt": "hunter2\n" });
    const h = await agentsHost(
      {
        permissions: { deny: ["Read(secret.txt)"] },
        hooks: {
          PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: bash("record.sh", project.path("pre.log")) }] }],
          SubagentStart: [{ matcher: "reviewer", hooks: [{ type: "command", command: bash("record.sh", project.path("start.log")) }] }],
          SubagentStop: [{ hooks: [{ type: "command", command: bash("record.sh", project.path("stop.log")) }] }],
        },
      },
      [
        { text: "Delegating.", toolCalls: [{ id: "task_1", name: "task", input: { description: "Review a.txt", prompt: "Review a.txt for bugs.", subagent_type: "reviewer" } }] },
        { toolCalls: [{ id: "r1", name: "read_file", input: { path: "a.txt" } }, { id: "r2", name: "read_file", input: { path: "secret.txt" } }, { id: "r3", name: "run_command", input: { command: "echo hi" } }] },
        { text: "a.txt looks fine." },
        { text: "The reviewer says a.txt looks fine." },
      ],
      { project, permissionMode: "bypass" },
    );
    h.host.session.messages.push({ role: "user", content: "earlier: the parent's private context" }, { role: "assistant", content: "noted" });
    const result = await h.host.run("Please review a.txt");
    expect(result).toMatchObject({ ok: true, text: "The reviewer says a.txt looks fine." });

    const [parent1, sub1, sub2, parent2] = h.model.requests;
    // The task tool is offered with the agent's description.
    const task = parent1.tools.find((t) => t.name === "task")!;
    expect(task.description).toContain("- reviewer: Reviews code for bugs. Use after a change.");
    expect(task.description).toContain("- explore: ");
    expect(task.inputSchema).toMatchObject({ required: ["description", "prompt"], properties: { subagent_type: { type: "string" } } });
    // Its own system prompt, a fresh context, only its tools.
    expect(sub1.system.startsWith("You are the reviewer. Report bugs only.")).toBe(true);
    expect(sub1.messages).toEqual([{ role: "user", content: "Review a.txt for bugs." }]);
    expect(sub1.tools.map((t) => t.name)).toEqual(["read_file", "grep"]);
    // Inside it: the tool ran, the deny rule held, a tool outside its list was refused.
    const [read, denied, outside] = toolResults(sub2.messages);
    expect(read).toContain("const a = 1;");
    expect(denied).toMatch(/^Permission denied: read_file\(secret.txt\) was not run because it matches the deny rule/);
    expect(outside).toBe("Tool run_command is not available to the reviewer agent; its tools are: read_file, grep.");
    // Its answer reaches the parent, with its usage; the parent's context never held the subagent's reads.
    const [answer] = toolResults(parent2.messages);
    expect(answer).toMatch(/^a\.txt looks fine\.\n\n\[reviewer agent: 2 turns, 3 tool calls, 20 input and 10 output tokens\]$/);
    expect(JSON.stringify(parent2.messages)).not.toContain("const a = 1;");

    // The command hook ran inside it, told which agent asks.
    const pre = readLog(project.path("pre.log")).inputs;
    expect(pre.map((i) => [i.tool_name, i.agent_type, i.agent_id])).toEqual([
      ["Read", "reviewer", "task_1"],
      ["Read", "reviewer", "task_1"],
    ]);
    // SubagentStart (matched by the agent's name) and SubagentStop fired, the latter with its answer.
    expect(readLog(project.path("start.log")).inputs).toEqual([expect.objectContaining({ hook_event_name: "SubagentStart", agent_type: "reviewer", agent_id: "task_1" })]);
    expect(readLog(project.path("stop.log")).inputs).toEqual([expect.objectContaining({ hook_event_name: "SubagentStop", agent_type: "reviewer", agent_id: "task_1", last_assistant_message: "a.txt looks fine." })]);

    await h.host.close();
    // The audit names the agent and the task call that started it.
    const calls = h.audit().filter((r) => r.kind === "call");
    // (The two reads ran at once: in the order they finished.)
    expect(calls.map((r) => [r.name, r.args?.path ?? r.args?.command ?? r.args?.subagent_type, r.outcome, r.by, r.agent, r.parentCallId]).sort()).toEqual([
      ["read_file", "a.txt", "ok", "mode:bypass", "reviewer", "task_1"],
      ["read_file", "secret.txt", "denied", "Read(secret.txt)", "reviewer", "task_1"],
      ["run_command", "echo hi", "denied", "agent:reviewer", "reviewer", "task_1"],
      ["task", "reviewer", "ok", "mode:bypass", undefined, undefined],
    ]);
  });

  test("the subagent's conversation is kept in a sidechain file next to the session's transcript", async () => {
    const project = tempProject({ ".agent/agents/reviewer.md": REVIEWER });
    const h = await agentsHost({}, [{ toolCalls: [{ id: "task_9", name: "task", input: { description: "d", prompt: "Look.", subagent_type: "reviewer" } }] }, { text: "nothing to see" }, { text: "ok" }], { project });
    await h.host.run("go");
    const transcript = h.host.session.transcriptPath;
    expect(transcript).toBeDefined();
    const dir = path.join(transcript!.replace(/\.jsonl$/, ""), "subagents");
    expect(readdirSync(dir)).toEqual(["agent-reviewer-task_9.jsonl"]);
    const lines = readFileSync(path.join(dir, "agent-reviewer-task_9.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "subagent", agent: "reviewer", parentCallId: "task_9" });
    expect(lines.slice(1).map((l) => l.message)).toEqual([{ role: "user", content: "Look." }, { role: "assistant", content: "nothing to see" }]);
    // Not part of the parent's conversation: the parent's transcript holds the task call and its answer only.
    const parent = readFileSync(transcript!, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((l) => l.type === "message").map((l) => l.message.role);
    expect(parent).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(existsSync(transcript!)).toBe(true);
  });
});
