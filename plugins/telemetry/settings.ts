/**
 * Whether and how to export, from the standard `OTEL_*` variables and config `telemetry`: on when an
 * OTLP endpoint is set (general or per signal) or `telemetry.enabled`, never with `OTEL_SDK_DISABLED=true`.
 * Reads nothing heavy: this runs on every start.
 */
export type Signal = "traces" | "metrics" | "logs";
export type OtlpProtocol = "http/json" | "http/protobuf";

export interface TelemetryConfig {
  enabled?: boolean;
  logToolContent?: boolean;
}

export interface TelemetrySettings {
  signals: Signal[];
  protocol: Record<Signal, OtlpProtocol>;
  serviceName: string;
  logToolContent: boolean;
  /** How long the exit waits for what is queued to be sent (ms). */
  flushTimeoutMs: number;
}

const SIGNALS: Signal[] = ["traces", "metrics", "logs"];
const key = (s: Signal) => s.toUpperCase();

/** Undefined when telemetry is off; throws a message for a protocol that is not supported. */
export function telemetrySettings(env: NodeJS.ProcessEnv, config: TelemetryConfig | undefined): TelemetrySettings | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return undefined;
  const general = !!env.OTEL_EXPORTER_OTLP_ENDPOINT || config?.enabled === true;
  const signals = SIGNALS.filter((s) => (general || !!env[`OTEL_EXPORTER_OTLP_${key(s)}_ENDPOINT`]) && env[`OTEL_${key(s)}_EXPORTER`]?.toLowerCase() !== "none");
  if (!signals.length) return undefined;
  const protocol = Object.fromEntries(SIGNALS.map((s) => [s, protocolOf(env[`OTEL_EXPORTER_OTLP_${key(s)}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)])) as Record<Signal, OtlpProtocol>;
  const timeout = Number(env.OTEL_EXPORTER_OTLP_TIMEOUT);
  return {
    signals,
    protocol,
    serviceName: env.OTEL_SERVICE_NAME || "agent-host",
    logToolContent: config?.logToolContent === true,
    flushTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? Math.min(timeout, 10_000) : 5_000,
  };
}

/** http/json unless said otherwise (every collector takes it on 4318, and it needs no protobuf code). */
function protocolOf(value: string | undefined): OtlpProtocol {
  const v = value?.trim().toLowerCase();
  if (!v || v === "http/json") return "http/json";
  if (v === "http/protobuf") return "http/protobuf";
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL "${value}" is not supported by agent-host: use http/json or http/protobuf (grpc is not built in)`);
}
