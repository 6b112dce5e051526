/**
 * The `task` tool (Claude Code's Task / Agent tool, same input): runs a subagent in a conversation of its
 * own (`host.runDetached`): its system prompt, the project instructions and its preloaded skills, the task
 * prompt, only its tools, its model and turn limit, the call's signal. Its last answer is the result. Every
 * call it makes passes the session's gate as a call of that agent. The `task` call itself only runs a
 * model, so it is read-only and several run at once; agents with tools that change things run one at a
 * time. A `task` call inside a subagent nests at most MAX_NESTING deep.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type DetachedRunResult, type PluginContext, type RegisteredAgent, type ToolCallContext, type ToolDefinition } from "../../core/index.js";
import { DEFAULT_MAX_TURNS, resolveModel, systemPrompt } from "../../core/embed.js";
import { skillBody } from "../../kit/index.js";
import { agentTools, TASK_TOOL } from "./agent-tools.js";
import { openSidechain } from "./sidechain.js";

/** Model errors that mean the agent's own model cannot be used on this host at all (no key, refused key). */
const NO_ACCESS = new Set(["E_MODEL_NO_KEY", "E_MODEL_AUTH"]);

/** Subagents inside subagents: at most this deep. */
export const MAX_NESTING = 2;
const nesting = new AsyncLocalStorage<number>();

interface TaskInput {
  description: string;
  prompt: string;
  subagent_type?: string;
}

export const TASK_SCHEMA = {
  type: "object",
  properties: {
    description: { type: "string", description: "A short (3-5 word) description of the task" },
    prompt: { type: "string", description: "The task for the agent to perform" },
    subagent_type: { type: "string", description: "The type of specialized agent to use for this task (default general-purpose)" },
  },
  required: ["description", "prompt"],
  additionalProperties: false,
} as const;

/** One at a time for agents that may change things; read-only agents do not wait. */
class WriterQueue {
  private tail: Promise<void> = Promise.resolve();
  async run<T>(work: () => Promise<T>): Promise<T> {
    const before = this.tail;
    let done!: () => void;
    this.tail = new Promise((resolve) => (done = resolve));
    await before;
    try {
      return await work();
    } finally {
      done();
    }
  }
}

export function taskTool(ctx: PluginContext): ToolDefinition<TaskInput> {
  const writers = new WriterQueue();
  return {
    name: TASK_TOOL,
    aliases: ["Task", "Agent"],
    description: "Launch a subagent to handle a task in a context of its own; only its answer comes back.",
    inputSchema: TASK_SCHEMA as never,
    risk: "read",
    // A subagent works for as long as its turns allow; its own calls have their own timeouts.
    timeoutMs: 3_600_000,
    // Rules name the agent: `task(explore)`, Claude Code's `Task(explore)` / `Agent(explore)`.
    permissionSubject: (input) => input.subagent_type ?? "general-purpose",
    async run(input, call) {
      const type = input.subagent_type ?? "general-purpose";
      const agent = ctx.host.agents.get(type);
      if (!agent) throw new Error(`Unknown agent "${type}". Agents: ${ctx.host.agents.list().map((a) => a.name).join(", ") || "(none)"}.`);
      const depth = nesting.getStore() ?? 0;
      if (depth >= MAX_NESTING) throw new Error(`The ${agent.name} agent was not started: subagents nest at most ${MAX_NESTING} deep.`);
      const { tools } = agentTools(agent, ctx.host.tools.list(), ctx.host.config.permissions?.deny ?? []);
      const writes = tools.some((t) => ctx.host.tools.get(t)?.risk !== "read" && t !== TASK_TOOL);
      const start = () => nesting.run(depth + 1, () => runAgent(ctx, agent, input, call, tools));
      // Inside a subagent the queue is its parent's to hold: waiting for it there would wait for ourselves.
      return writes && depth === 0 ? writers.run(start) : start();
    },
  };
}

async function runAgent(ctx: PluginContext, agent: RegisteredAgent, input: TaskInput, call: ToolCallContext, tools: string[]) {
  const host = ctx.host;
  const chosen = agentModel(ctx, agent);
  let notice = chosen.notice;
  const sidechain = openSidechain(host.session.transcriptPath, { agent: agent.name, parentCallId: call.callId, description: input.description, model: chosen.model });
  const system = await agentSystemPrompt(ctx, agent);
  const run = (model: string | undefined) =>
    host.runDetached({
      prompt: input.prompt,
      system,
      tools,
      agent: { name: agent.name, parentCallId: call.callId, ...(agent.permissionMode ? { mode: agent.permissionMode } : {}) },
      ...(model ? { model } : {}),
      maxTurns: turnBudget(ctx, agent),
      signal: call.signal,
      ...(sidechain ? { onMessage: (m) => sidechain.add(m) } : {}),
    });
  let result = await run(chosen.model);
  // A model of its own that this host has no key for (`model: sonnet` in a file written for Claude Code, on a
  // host set up for another provider): refused before it did anything, so it runs on the session's instead.
  if (chosen.model && result.reason === "error" && result.toolCalls === 0 && NO_ACCESS.has(result.error?.code ?? "")) {
    notice = `(The ${agent.name} agent asks for model "${agent.model}", which could not be used here (${result.error!.message.split("\n")[0]}); it ran on the session's model.)`;
    result = await run(undefined);
  }
  const notes = [notice, endNotice(agent, result)].filter(Boolean);
  const usage = `[${agent.name} agent: ${result.turns} turn${result.turns === 1 ? "" : "s"}, ${result.toolCalls} tool call${result.toolCalls === 1 ? "" : "s"}, ${result.usage.inputTokens} input and ${result.usage.outputTokens} output tokens]`;
  const output = [result.text || "(the agent gave no answer)", ...notes, usage].join("\n\n");
  return {
    output,
    isError: result.reason === "error" || result.reason === "aborted",
    structured: { agent: agent.name, reason: result.reason, turns: result.turns, toolCalls: result.toolCalls, usage: result.usage, model: result.model, ...(sidechain ? { transcript: sidechain.file } : {}) },
  };
}

/** Its `maxTurns`, never more than the session's own budget (config `maxTurns`, else 50). */
function turnBudget(ctx: PluginContext, agent: RegisteredAgent): number {
  const session = ctx.host.config.maxTurns ?? DEFAULT_MAX_TURNS;
  return Math.min(agent.maxTurns ?? session, session);
}

/** Why the agent stopped, when it did not simply finish. */
function endNotice(agent: RegisteredAgent, result: DetachedRunResult): string | undefined {
  switch (result.reason) {
    case "max_turns":
      return `(The ${agent.name} agent reached its limit of ${result.turns} turns; this is what it had.)`;
    case "aborted":
      return `(The ${agent.name} agent was cancelled.)`;
    case "error":
      return `(The ${agent.name} agent failed: ${result.error?.message ?? "unknown error"})`;
    case "max_tokens":
      return `(The ${agent.name} agent's answer was cut at the model's output limit.)`;
    default:
      return undefined;
  }
}

/** The agent's model; `inherit` or one this host cannot run (a provider not loaded) falls back to the session's, said in the result. */
function agentModel(ctx: PluginContext, agent: RegisteredAgent): { model?: string; notice?: string } {
  if (!agent.model || agent.model === "inherit") return {};
  try {
    return { model: resolveModel(ctx.host, agent.model).ref };
  } catch (err) {
    return { notice: `(The ${agent.name} agent asks for model "${agent.model}", which this host cannot run (${(err as Error).message.split("\n")[0]}); it ran on the session's model.)` };
  }
}

/** Its prompt, the project instructions, and the bodies of its skills. */
async function agentSystemPrompt(ctx: PluginContext, agent: RegisteredAgent): Promise<string> {
  const base = await systemPrompt(ctx.host, `${agent.prompt}\n\nWorking directory: ${ctx.host.workspace.root}`);
  const skills = await Promise.all(
    (agent.skills ?? []).map(async (name) => {
      const skill = ctx.host.skills.get(name);
      if (!skill) return `# Skill: ${name}\n\n(not found: no skill of this name is registered)`;
      // A skill loaded on use (an MCP server's) may fail to load: the agent is told, not stopped.
      const body = await skillBody(skill).catch((err: unknown) => `(not loaded: ${(err as Error)?.message ?? String(err)})`);
      return `# Skill: ${name}\n\n${body}`;
    }),
  );
  return skills.length ? `${base}\n\n${skills.join("\n\n")}` : base;
}
