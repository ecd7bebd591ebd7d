import { context, propagation, trace } from '@opentelemetry/api';
import type { TracingSettings } from '../config.js';

/** The running tracer provider, or nothing (tracing off). */
export interface Tracing {
  /** Whether spans are recorded and exported: the HTTP layer and the database install their hooks only then. */
  readonly enabled: boolean;
  /** Exports what is still queued and unregisters the global provider, propagator and context manager. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, shutdown: async () => {} };

/**
 * Starts OpenTelemetry tracing from the OTEL_* settings (config.ts). Off (no endpoint): nothing is loaded
 * and the `@opentelemetry/api` calls spread through the code stay its no-op tracer. On: the SDK, the
 * AsyncLocalStorage context manager, the W3C `traceparent` propagator and the OTLP/HTTP exporter of the
 * configured protocol are imported here, dynamically, and registered as the process's globals.
 */
export async function startTracing(settings: TracingSettings | undefined): Promise<Tracing> {
  if (!settings) return OFF;
  const [sdk, hooks, core, resources, semconv] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const exporterOptions = {
    url: settings.url,
    headers: settings.headers,
    timeoutMillis: settings.timeoutMs,
  };
  const exporter =
    settings.protocol === 'http/json'
      ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(exporterOptions)
      : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(exporterOptions);

  const ratio = new sdk.TraceIdRatioBasedSampler(settings.samplerRatio);
  const root = {
    always_on: new sdk.AlwaysOnSampler(),
    always_off: new sdk.AlwaysOffSampler(),
    traceidratio: ratio,
    parentbased_always_on: new sdk.AlwaysOnSampler(),
    parentbased_always_off: new sdk.AlwaysOffSampler(),
    parentbased_traceidratio: ratio,
  }[settings.sampler];
  const sampler = settings.sampler.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root }) : root;

  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({
      ...settings.resourceAttributes,
      [semconv.ATTR_SERVICE_NAME]: settings.serviceName,
    }),
    sampler,
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: settings.batch.scheduleDelayMs,
        maxQueueSize: settings.batch.maxQueueSize,
        maxExportBatchSize: settings.batch.maxExportBatchSize,
        exportTimeoutMillis: settings.timeoutMs,
      }),
    ],
  });
  const contextManager = new hooks.AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    enabled: true,
    shutdown: async () => {
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        propagation.disable();
        context.disable();
      }
    },
  };
}
