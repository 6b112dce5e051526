/**
 * Calls in flight, by call id, with the client that made each: a permission question is put to that
 * client as an elicitation when it declared it can answer one, and is `unanswered` otherwise (the gate
 * then denies it, naming the rule to add). Progress of a call goes back to its client the same way.
 */
import type { Server, ServerContext } from "@modelcontextprotocol/server";
import type { AgentEvent, PermissionAnswer, PermissionAsker, PermissionRequest } from "../../core/index.js";

interface PendingCall {
  server: Server;
  ctx: ServerContext;
  progressToken?: string | number;
}

export class PendingCalls {
  private readonly calls = new Map<string, PendingCall>();

  add(callId: string, call: PendingCall): void {
    this.calls.set(callId, call);
  }

  delete(callId: string): void {
    this.calls.delete(callId);
  }

  /** The host's permission asker: routes each question to the client whose call it is. */
  readonly asker: PermissionAsker = async (req) => {
    if (req.kind !== undefined && req.kind !== "call") return "unanswered";
    const call = req.callId === undefined ? undefined : this.calls.get(req.callId);
    if (!call?.server.getClientCapabilities()?.elicitation) return "unanswered";
    return elicit(call, req);
  };

  /** For `host.on`: a tool's progress to the client that asked for it (when it sent a progress token). */
  readonly onEvent = (event: AgentEvent): void => {
    if (event.type !== "tool_progress") return;
    const call = this.calls.get(event.callId);
    if (call?.progressToken === undefined) return;
    const { progress, total, message } = event;
    void call.ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: call.progressToken, progress, ...(total === undefined ? {} : { total }), ...(message ? { message } : {}) } }).catch(() => {});
  };
}

const CHOICES = ["allow_once", "allow_session", "deny"] as const;

async function elicit(call: PendingCall, req: PermissionRequest): Promise<PermissionAnswer> {
  const what = req.subject ? `${req.tool.name}(${req.subject})` : req.tool.name;
  try {
    const answer = await call.ctx.mcpReq.elicitInput(
      {
        mode: "form",
        message: `agent-host asks: allow ${what} (risk: ${req.tool.risk})?${req.suggestedRule ? ` "Allow for this session" adds ${req.suggestedRule}.` : ""}`,
        requestedSchema: {
          type: "object",
          properties: {
            decision: { type: "string", title: "Decision", enum: [...CHOICES], enumNames: ["Allow once", "Allow for this session", "Deny"], default: "allow_once" },
          },
          required: ["decision"],
        },
      } as never,
      { signal: call.ctx.mcpReq.signal },
    );
    if (answer.action !== "accept") return { decision: "deny", message: `the client ${answer.action === "decline" ? "declined" : "cancelled"} the question` };
    const decision = (answer.content as { decision?: unknown } | undefined)?.decision;
    return CHOICES.includes(decision as never) ? (decision as PermissionAnswer) : "deny";
  } catch {
    // The client failed to answer (it went away, or refused the request): no approval.
    return "deny";
  }
}
