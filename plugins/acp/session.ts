/**
 * One ACP session: a host of its own (the editor's folder and MCP servers), its events streamed to the
 * editor as `session/update`, its "ask" questions put as `session/request_permission`, a prompt run as
 * the agent loop's run and its end as the ACP stop reason.
 */
import type { AgentContext, ContentBlock, PermissionOption, RequestPermissionResponse, SessionUpdate, StopReason as AcpStopReason } from "@agentclientprotocol/sdk";
import type { CliSessionHost, PermissionAnswer, PermissionAsker, PermissionRequest, Plugin, ToolResult } from "../../core/index.js";
import type { RunResult } from "../../core/embed.js";
import { ClientFiles, type ClientFs } from "./client-files.js";
import { titleOf, toolKind, toUpdate } from "./updates.js";

const OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_session", name: "Always allow (this session)", kind: "allow_always" },
  { optionId: "deny", name: "Reject", kind: "reject_once" },
];

const STOP: Record<RunResult["reason"], AcpStopReason> = {
  end_turn: "end_turn",
  max_turns: "max_turn_requests",
  max_tokens: "max_tokens",
  aborted: "cancelled",
  stopped: "refusal",
  error: "end_turn",
};

export class AcpSession {
  private running: AbortController | undefined;
  host!: CliSessionHost;
  private readonly files: ClientFiles;

  constructor(
    readonly client: AgentContext,
    readonly cwd: string,
    private readonly runOptions: { model?: string; maxTurns?: number },
    fs: ClientFs = {},
  ) {
    this.files = new ClientFiles(client, () => this.id, () => this.host.workspace, fs);
  }

  get id(): string {
    return this.host.sessionId;
  }

  /** The updates sent so far, in order (an edit's diff waits for the editor's text of its file). */
  private outbox: Promise<void> = Promise.resolve();

  attach(host: CliSessionHost): void {
    this.host = host;
    host.on((event) => {
      // An edit's diff starts from the editor's text of the file when the editor offers it.
      if (event.type === "tool_start" && event.risk === "write" && this.files.fs.readTextFile) {
        const text = this.files.textOf(event.input);
        return this.send(text.then((t) => toUpdate(event, host.cwd, t)));
      }
      const update = toUpdate(event, host.cwd);
      if (!update) return;
      if (event.type === "tool_end") this.addOutput(update, event.callId, event.error === undefined);
      this.send(update);
    });
  }

  private send(update: SessionUpdate | undefined | Promise<SessionUpdate | undefined>): void {
    this.outbox = this.outbox.then(async () => {
      const u = await update;
      if (u) await this.client.notify("session/update", { sessionId: this.id, update: u }).catch(() => {});
    });
  }

  /** What a successful call returned, shown with its end in the editor (a failure shows its error already). */
  private addOutput(update: SessionUpdate, callId: string, ok: boolean): void {
    const output = this.outputs.get(callId);
    this.outputs.delete(callId);
    if (ok && output && update.sessionUpdate === "tool_call_update") update.content = [{ type: "content", content: { type: "text", text: output } }];
  }

  private readonly outputs = new Map<string, string>();

  /** This session's own plugin: the editor's files when it offers them; it keeps each call's output until the call's end is sent. */
  plugin(): Plugin {
    const files = this.files.active ? this.files : undefined;
    return {
      name: "acp-session",
      ...(files ? { beforeToolCall: files.before } : {}),
      afterToolCall: async (result, call) => {
        const out = files ? await files.after(result as ToolResult, call) : result;
        this.outputs.set(out.callId, out.output);
        return out as ToolResult;
      },
    };
  }

  /** The gate's questions, put to the editor; a grant or a plugin's question has nobody to answer here. */
  readonly asker: PermissionAsker = async (req): Promise<PermissionAnswer> => {
    if (req.kind !== undefined && req.kind !== "call") return "unanswered";
    const call = req as PermissionRequest;
    const toolCall = { toolCallId: call.callId ?? `ask_${Date.now()}`, title: titleOf(call.tool.name, call.input), kind: toolKind(call.tool.name, call.tool.risk), status: "pending" as const, rawInput: call.input as Record<string, unknown> };
    let answer: RequestPermissionResponse;
    // The call is announced (tool_call) before it is asked about.
    await this.outbox;
    try {
      answer = await this.client.request("session/request_permission", { sessionId: this.id, toolCall, options: OPTIONS });
    } catch {
      return "deny";
    }
    if (answer.outcome.outcome !== "selected") return { decision: "deny", message: "the user cancelled the question" };
    const chosen = answer.outcome.optionId;
    return chosen === "allow_once" || chosen === "allow_session" ? chosen : "deny";
  };

  async prompt(blocks: ContentBlock[]): Promise<AcpStopReason> {
    if (this.running) throw Object.assign(new Error("a prompt is already running in this session"), { code: -32600 });
    const controller = (this.running = new AbortController());
    try {
      const result = await this.host.run(promptText(blocks), { ...this.runOptions, signal: controller.signal });
      if (result.reason === "error") throw Object.assign(new Error(result.error?.message ?? "the model failed"), { code: -32603, data: result.error });
      return STOP[result.reason];
    } finally {
      this.running = undefined;
    }
  }

  cancel(): void {
    this.running?.abort();
  }
}

/** The prompt's blocks as the text the model gets: text as is, a resource's text and a link by its URI. */
export function promptText(blocks: ContentBlock[]): string {
  return blocks
    .map((b) => {
      if (b.type === "text") return b.text;
      if (b.type === "resource_link") return `@${b.uri}`;
      if (b.type === "resource" && "text" in b.resource) return `<context uri="${b.resource.uri}">\n${b.resource.text}\n</context>`;
      return `[${b.type} content left out: not supported]`;
    })
    .join("\n");
}
