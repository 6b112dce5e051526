/** `agent acp`: the ACP agent on stdio, its sessions each a host opened like `agent run`'s. */
import { statSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { agent, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from "@agentclientprotocol/sdk";
import { AgentError, PERMISSION_MODES, type CliContext, type PermissionMode } from "../../core/index.js";
import { hostVersion } from "../../kit/index.js";
import { mcpServersConfig } from "./mcp-servers.js";
import type { ClientFs } from "./client-files.js";
import { AcpSession } from "./session.js";
import { replay } from "./replay.js";

type Values = { model?: string; "max-turns"?: string };

/** ACP's `cwd` is an absolute path to the session's folder: anything else is the client's mistake, said as such. */
function checkFolder(cwd: unknown): void {
  if (typeof cwd !== "string" || !path.isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    /* said below */
  }
  if (!isDir) throw RequestError.invalidParams({ cwd }, `cwd ${cwd} is not a folder`);
}

const MODE_NAMES: Record<PermissionMode, string> = { default: "Ask", plan: "Plan (read only)", acceptEdits: "Accept edits", bypass: "Bypass permissions" };

export async function runAcp(ctx: CliContext<Values>): Promise<number> {
  const maxTurns = ctx.values["max-turns"] === undefined ? undefined : Number(ctx.values["max-turns"]);
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns > 0)) throw new AgentError("E_USAGE", `--max-turns must be a positive whole number; got "${ctx.values["max-turns"]}"`);
  const runOptions = { model: ctx.values.model, maxTurns };
  // What the editor offers (initialize): its files, read and written through it.
  let clientFs: ClientFs = {};
  const sessions = new Map<string, AcpSession>();
  const find = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw RequestError.invalidParams({ sessionId: id }, `no session ${id}`);
    return s;
  };
  const open = async (client: AcpSession["client"], cwd: string, mcp: Parameters<typeof mcpServersConfig>[0]) => {
    checkFolder(cwd);
    const session = new AcpSession(client, cwd, runOptions, clientFs);
    const servers = mcpServersConfig(mcp);
    session.attach(await ctx.openSessionHost({ cwd, askPermission: session.asker, plugins: [session.plugin()], ...(servers ? { config: { mcpServers: servers } as never } : {}) }));
    sessions.set(session.id, session);
    return session;
  };
  const modes = (s: AcpSession) => ({ currentModeId: s.host.permissionMode, availableModes: PERMISSION_MODES.map((id) => ({ id, name: MODE_NAMES[id] })) });

  const app = agent({ name: "agent-host" })
    .onRequest(methods.agent.initialize, ({ params }) => {
      clientFs = { readTextFile: params.clientCapabilities?.fs?.readTextFile === true, writeTextFile: params.clientCapabilities?.fs?.writeTextFile === true };
      return {
      protocolVersion: PROTOCOL_VERSION,
      agentInfo: { name: "agent-host", title: "agent-host", version: hostVersion() },
      agentCapabilities: { loadSession: true, promptCapabilities: { image: false, audio: false, embeddedContext: true }, mcpCapabilities: { http: true, sse: true } },
      authMethods: [],
      };
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      const s = await open(client, params.cwd, params.mcpServers);
      return { sessionId: s.id, modes: modes(s) };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const s = await open(client, params.cwd, params.mcpServers);
      sessions.delete(s.id);
      try {
        await s.host.session.resume(params.sessionId);
      } catch (err) {
        await s.host.close();
        throw RequestError.resourceNotFound(params.sessionId);
      }
      sessions.set(s.id, s);
      await replay(s);
      return { modes: modes(s) };
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const mode = params.modeId as PermissionMode;
      if (!PERMISSION_MODES.includes(mode)) throw RequestError.invalidParams({ modeId: params.modeId }, `modes are ${PERMISSION_MODES.join(", ")}`);
      find(params.sessionId).host.setPermissionMode(mode, { by: "acp" });
      return {};
    })
    .onRequest(methods.agent.session.prompt, async ({ params }) => ({ stopReason: await find(params.sessionId).prompt(params.prompt) }))
    .onNotification(methods.agent.session.cancel, ({ params }) => sessions.get(params.sessionId)?.cancel());

  const connection = app.connect(ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>));
  await connection.closed;
  for (const s of sessions.values()) s.cancel();
  await Promise.all([...sessions.values()].map((s) => s.host.close()));
  return 0;
}
