/**
 * An embedder's audit sink (`createHost({ auditSink })`): it gets the records the file would, with the
 * same guarantees (a call's start is stored before its tool runs, its outcome before the caller sees the
 * result), no file is written, and a sink that cannot store refuses calls unless audit.onError is "warn".
 */
import { existsSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import { z, type ToolDefinition } from "../../core/index.js";
import type { AuditBatch, AuditRecord, AuditSink } from "../../core/embed.js";
import { closeHosts, hostWithTools } from "../helpers/host.js";
import { cleanupTemp } from "../helpers/project.js";

afterAll(async () => {
  await closeHosts();
  cleanupTemp();
});

/** A sink that keeps its records in memory; `failing` makes append throw as a full disk would. */
function memorySink() {
  const records: (AuditRecord & { session: string })[] = [];
  const made: { file: string; config: unknown }[] = [];
  let failing = false;
  let closed = false;
  const sink = (file: string, config: unknown): AuditSink => {
    made.push({ file, config });
    return {
      append(batch: AuditBatch) {
        if (failing) throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
        for (const r of batch.records) records.push({ ...r, session: batch.session });
      },
      close: () => void (closed = true),
    };
  };
  return { sink, records, made, fail: (on: boolean) => void (failing = on), closed: () => closed };
}

describe("an embedder's audit sink", () => {
  test("gets the start before the tool runs and the outcome before the caller sees it; no file is written", async () => {
    const m = memorySink();
    const seen: string[] = [];
    const probe: ToolDefinition = {
      name: "probe",
      description: "Says which records the sink had when it ran",
      risk: "read",
      input: z.object({ n: z.number() }),
      run: () => {
        seen.push(m.records.map((r) => `${r.kind}:${r.name}`).join(","));
        return "ran";
      },
    };
    const { host, project } = await hostWithTools([probe], { auditSink: m.sink, config: { audit: { maxBytes: 12345 } } });
    expect(m.made).toEqual([{ file: project.auditFile, config: { maxBytes: 12345 } }]);
    const result = await host.tools.call("probe", { n: 1 });
    expect(result.ok).toBe(true);
    expect(seen).toEqual([expect.stringMatching(/(^|,)start:probe$/)]);
    const call = m.records.find((r) => r.kind === "call" && r.name === "probe");
    expect(call).toMatchObject({ source: "test", outcome: "ok", session: host.sessionId, args: { n: 1 } });
    await host.close();
    expect(m.closed()).toBe(true);
    expect(existsSync(project.auditFile)).toBe(false);
  });

  test("a sink that cannot store refuses calls, says so once, and takes them again once it can", async () => {
    const m = memorySink();
    let runs = 0;
    const count: ToolDefinition = { name: "count", description: "Counts", risk: "read", input: z.object({}), run: () => String(++runs) };
    const { host } = await hostWithTools([count], { auditSink: m.sink });
    m.fail(true);
    const refused = await host.tools.call("count", {});
    expect(refused.error?.code).toBe("E_AUDIT_UNAVAILABLE");
    expect(refused.output).toContain("cannot be written (ENOSPC), and every call must be recorded");
    expect(runs).toBe(0);
    expect(host.problems.filter((p) => p.message.includes("is not writable: no space left on device")).length).toBe(1);
    m.fail(false);
    // Tried again at most once a second: wait for the retry rather than a fixed time.
    await expect.poll(async () => (await host.tools.call("count", {})).ok, { timeout: 5000, interval: 200 }).toBe(true);
    expect(runs).toBe(1);
  });

  test('with audit.onError "warn" calls run unrecorded while the sink cannot store', async () => {
    const m = memorySink();
    const count: ToolDefinition = { name: "count", description: "Counts", risk: "read", input: z.object({}), run: () => "ok" };
    const { host } = await hostWithTools([count], { auditSink: m.sink, config: { audit: { onError: "warn" } } });
    m.fail(true);
    expect((await host.tools.call("count", {})).ok).toBe(true);
  });

  test("audit: false makes no sink", async () => {
    const m = memorySink();
    const { host } = await hostWithTools([], { auditSink: m.sink, audit: false });
    expect(m.made).toEqual([]);
    await host.close();
  });
});
