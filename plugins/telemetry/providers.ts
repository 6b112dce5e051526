/**
 * The OpenTelemetry SDK, set up once per process (every host of the process shares it): a tracer, a
 * meter and a logger provider, each with a batching processor and an OTLP exporter for the chosen
 * protocol (the exporters read the standard OTEL_EXPORTER_OTLP_* endpoint, headers and timeout). Export
 * never blocks a call: items are queued (bounded) and sent in the background; what could not be sent is
 * counted and said when the process ends.
 */
import type { Logger as OtelLogger } from "@opentelemetry/api-logs";
import type { Meter, Tracer } from "@opentelemetry/api";
import type { ExportResult } from "@opentelemetry/core";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter } from "@opentelemetry/sdk-logs";
import type { Signal, TelemetrySettings } from "./settings.js";

export interface Providers {
  tracer?: Tracer;
  meter?: Meter;
  logger?: OtelLogger;
  /** Send what is queued, waiting at most `timeoutMs`. Never rejects. */
  flush(timeoutMs: number): Promise<void>;
}

/** Items queued for export, sent, and refused by the endpoint (or unreachable), per signal. */
const counts = { traces: { queued: 0, sent: 0, lost: 0 }, logs: { queued: 0, sent: 0, lost: 0 }, metrics: { queued: 0, sent: 0, lost: 0 } };

/** One span or log record was handed to its processor (for the count of what was never sent). */
export function noteQueued(signal: Signal): void {
  counts[signal].queued++;
}
let shared: Promise<Providers> | undefined;

export function providers(settings: TelemetrySettings, version: string): Promise<Providers> {
  return (shared ??= create(settings, version));
}

/** What was queued and not sent (dropped from a full queue, refused, or still queued at exit), for the line at exit. */
export function unsentCounts(): { spans: number; logs: number; metricExportsFailed: number } {
  return { spans: Math.max(0, counts.traces.queued - counts.traces.sent), logs: Math.max(0, counts.logs.queued - counts.logs.sent), metricExportsFailed: counts.metrics.lost };
}

/**
 * An exporter that counts what it could not send (a refused or unreachable endpoint), and serializes a
 * batch on a later turn of the event loop: a batch processor exports at once when its batch fills up,
 * which is inside the call whose span ended last; the call should not wait for the encoding of 512 spans.
 */
function counting<T extends { export(items: any, done: (r: ExportResult) => void): void }>(exporter: T, signal: Signal, size: (items: any) => number): T {
  const send = exporter.export.bind(exporter);
  const count = (items: any, done: (r: ExportResult) => void) => (result: ExportResult) => {
    if (result.code === 0) counts[signal].sent += size(items);
    else counts[signal].lost += size(items);
    done(result);
  };
  exporter.export = (items, done) => void setImmediate(() => send(items, count(items, done)));
  return exporter;
}

async function exporterFor(signal: Signal, settings: TelemetrySettings): Promise<unknown> {
  const proto = settings.protocol[signal] === "http/protobuf";
  if (signal === "traces") return new (proto ? (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter : (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter)();
  if (signal === "metrics") return new (proto ? (await import("@opentelemetry/exporter-metrics-otlp-proto")).OTLPMetricExporter : (await import("@opentelemetry/exporter-metrics-otlp-http")).OTLPMetricExporter)();
  return new (proto ? (await import("@opentelemetry/exporter-logs-otlp-proto")).OTLPLogExporter : (await import("@opentelemetry/exporter-logs-otlp-http")).OTLPLogExporter)();
}

async function create(settings: TelemetrySettings, version: string): Promise<Providers> {
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME apply; the service is agent-host unless named.
  const resource = resourceFromAttributes({ "service.name": settings.serviceName, "service.version": version }).merge(detectResources({ detectors: [envDetector] }));
  const on = new Set(settings.signals);
  const out: Providers = { flush: async () => {} };
  const flushes: (() => Promise<void>)[] = [];
  if (on.has("traces")) {
    const exporter = counting((await exporterFor("traces", settings)) as SpanExporter, "traces", (s: unknown[]) => s.length);
    const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 4096, scheduledDelayMillis: 1000 })] });
    out.tracer = provider.getTracer("agent-host", version);
    flushes.push(() => provider.forceFlush());
  }
  if (on.has("metrics")) {
    const exporter = counting((await exporterFor("metrics", settings)) as PushMetricExporter, "metrics", () => 1);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 30_000 });
    const provider = new MeterProvider({ resource, readers: [reader] });
    out.meter = provider.getMeter("agent-host", version);
    flushes.push(() => provider.forceFlush());
  }
  if (on.has("logs")) {
    const exporter = counting((await exporterFor("logs", settings)) as LogRecordExporter, "logs", (r: unknown[]) => r.length);
    const provider = new LoggerProvider({ resource, processors: [new BatchLogRecordProcessor({ exporter, maxQueueSize: 4096, scheduledDelayMillis: 1000 })] });
    out.logger = provider.getLogger("agent-host", version);
    flushes.push(() => provider.forceFlush());
  }
  out.flush = (timeoutMs) => {
    const bound = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
    return Promise.race([Promise.allSettled(flushes.map((f) => f())).then(() => {}), bound]);
  };
  return out;
}
