/**
 * Shared by the loop, provider and CLI tests: the fake model servers (real HTTP on 127.0.0.1) and a
 * host wired to them through the real provider plugins.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHost, type AgentEvent, type Host, type Plugin } from "../../core/index.js";
import { type CreateHostOptions } from "../../core/embed.js";
import { builtinPlugins } from "../../cli/builtins.js";
import { startFakeAnthropic } from "../fixtures/models/fake-anthropic.mjs";
import { startFakeOpenAI, type FakeServer, type FakeServerOptions, type RecordedRequest, type ScriptEntry } from "../fixtures/models/fake-openai.mjs";

export type Kind = "openai" | "anthropic";
export const KINDS: Kind[] = ["openai", "anthropic"];

export type { FakeServer, FakeServerOptions, RecordedRequest as FakeRequest };
/** A scripted model turn (see tests/fixtures/models/fake-openai.mjs for the fields). */
export type Turn = ScriptEntry;

export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
export const REPO = fileURLToPath(new URL("../../", import.meta.url));

export function startFake(kind: Kind, script: Turn[] = [], opts: FakeServerOptions = {}): Promise<FakeServer> {
  return kind === "openai" ? startFakeOpenAI(script, opts) : startFakeAnthropic(script, opts);
}

export async function tempDir(prefix = "agent-loop-"): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface TestHost {
  host: Host;
  events: AgentEvent[];
  dir: string;
  /** Closes the host and removes the temp project. */
  close(): Promise<void>;
}

/** A host in a fresh temp project, with the real provider plugin for `kind` pointed at `srv`. */
export async function openHost(
  kind: Kind,
  srv: FakeServer,
  options: { tools?: Plugin["tools"]; plugins?: CreateHostOptions["plugins"]; builtins?: string[] } & Omit<CreateHostOptions, "plugins" | "builtins" | "cwd"> = {},
): Promise<TestHost> {
  const { tools, plugins = [], builtins = ["openai", "anthropic", "sessions", "compaction", "instructions", "commands"], config, ...rest } = options;
  const tmp = await tempDir();
  const host = await createHost({
    cwd: tmp.dir,
    userConfigDir: false,
    builtins: builtinPlugins.filter((b) => builtins.includes(b.name)),
    plugins: [...(tools ? [{ name: "test-tools", tools }] : []), ...plugins],
    config: {
      model: `${kind}:test-model`,
      providers: { [kind]: { baseURL: srv.baseURL, apiKey: "test-key" } },
      ...config,
    },
    ...rest,
  });
  host.session.model = `${kind}:test-model`;
  const events: AgentEvent[] = [];
  host.on((e) => events.push(e));
  return {
    host,
    events,
    dir: tmp.dir,
    async close() {
      await host.close();
      await tmp.remove();
    },
  };
}

/** Tool result messages of a recorded request, normalised across the two wire formats. */
export function toolResults(kind: Kind, req: RecordedRequest): { id: string; content: string; isError: boolean }[] {
  if (kind === "openai") {
    return req.body.messages
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { tool_call_id: string; content: string }) => ({ id: m.tool_call_id, content: m.content, isError: m.content.startsWith("Error: ") }));
  }
  const out: { id: string; content: string; isError: boolean }[] = [];
  for (const m of req.body.messages) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const b of m.content) if (b.type === "tool_result") out.push({ id: b.tool_use_id, content: b.content, isError: b.is_error === true });
  }
  return out;
}

/** The system prompt of a recorded request. */
export function systemOf(kind: Kind, req: RecordedRequest): string {
  if (kind === "openai") return req.body.messages.find((m: { role: string }) => m.role === "system")?.content ?? "";
  return (req.body.system ?? []).map((b: { text: string }) => b.text).join("");
}

/** Tool names offered in a recorded request. */
export function toolNamesOf(kind: Kind, req: RecordedRequest): string[] {
  return (req.body.tools ?? []).map((t: { name?: string; function?: { name: string } }) => (kind === "openai" ? t.function!.name : t.name!));
}
