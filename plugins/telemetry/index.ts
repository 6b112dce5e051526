/**
 * The telemetry plugin: OpenTelemetry export of runs, model requests, tool calls, metrics and the audit
 * records, off unless an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or a signal's own) or config
 * `telemetry.enabled`. Off, it reads a few variables and loads nothing: start-up is unchanged. On, the
 * SDK loads in its setup. Written only against the public API, on the `event` and `shutdown` hooks.
 */
import { definePlugin, errorMessage, z } from "../../core/index.js";
import { telemetrySettings } from "./settings.js";

declare module "../../core/index.js" {
  interface PluginConfigSections {
    telemetry?: TelemetryConfigSection;
  }
}

export const TelemetryConfigSchema = z.strictObject({
  /** Export even with no OTEL_EXPORTER_OTLP_ENDPOINT (then to the OTLP default, http://localhost:4318). */
  enabled: z.boolean().optional(),
  /** Put tool inputs (redacted as in the audit log) on tool spans and audit log records. Default false. */
  logToolContent: z.boolean().optional(),
});
export type TelemetryConfigSection = z.infer<typeof TelemetryConfigSchema>;

export default definePlugin({
  name: "telemetry",
  configSections: { telemetry: { schema: TelemetryConfigSchema } },
  async setup(ctx) {
    let settings;
    try {
      settings = telemetrySettings(process.env, ctx.config.telemetry);
    } catch (err) {
      ctx.report({ kind: "config", message: `telemetry: ${errorMessage(err)}; nothing is exported` });
      return;
    }
    if (!settings) return;
    const { startRecording } = await import("./start.js");
    await startRecording(ctx, settings);
  },
});
