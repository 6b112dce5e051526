/** Telemetry on: the SDK's providers (shared by the process's hosts), this host's recorder on its events. */
import { type PluginContext } from "../../core/index.js";
import { hostVersion } from "../../kit/index.js";
import { providers, unsentCounts } from "./providers.js";
import { Recorder } from "./recorder.js";
import type { TelemetrySettings } from "./settings.js";

let exitNote = false;

export async function startRecording(ctx: PluginContext<any>, settings: TelemetrySettings): Promise<void> {
  const otel = await providers(settings, hostVersion());
  const recorder = new Recorder(otel, settings.logToolContent);
  ctx.hooks.event.tap({ name: "telemetry", types: Recorder.TYPES }, recorder.record);
  // Each call's execute_tool span is the parent the servers it calls see (the MCP plugin's `_meta`).
  if (otel.tracer) ctx.traceCalls(recorder.calls.traceContext);
  // What is queued is sent before the host closes, waiting at most the exporter timeout (5 s by default).
  ctx.hooks.shutdown.tapPromise("telemetry", async () => {
    recorder.close();
    await otel.flush(settings.flushTimeoutMs);
  });
  if (!exitNote) {
    exitNote = true;
    process.once("exit", () => {
      const u = unsentCounts();
      if (u.spans || u.logs || u.metricExportsFailed) {
        process.stderr.write(`agent: telemetry: not exported: ${u.spans} spans, ${u.logs} log records, ${u.metricExportsFailed} metric exports (queue full, endpoint unreachable or refused, or still queued at exit)\n`);
      }
    });
  }
}
