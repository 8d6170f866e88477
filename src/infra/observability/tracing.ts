// OpenTelemetry tracing. Code creates spans through the global API (tracer()); the SDK is only
// loaded and installed when OTEL_EXPORTER_OTLP_ENDPOINT is set, so without it every span is a
// no-op and the SDK costs no memory. Tests register their own provider (in-memory exporter).
import { trace, type Tracer } from '@opentelemetry/api';
import type { Config } from '../config.js';

export const TRACER_NAME = 'tunnel-service';

/** The global API tracer: a no-op until a provider is registered, then that provider's. */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

export interface Tracing {
  /** Exports what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Registers a tracer provider that batches spans to OTLP/HTTP; null when no endpoint is set. */
export async function startTracing(config: Pick<Config, 'otlpEndpoint' | 'serviceName'>): Promise<Tracing | null> {
  if (!config.otlpEndpoint) return null;
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor }, { NodeTracerProvider }] =
    await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/sdk-trace-node'),
    ]);
  // OTEL_EXPORTER_OTLP_ENDPOINT is the collector's base address; the traces signal lives under
  // /v1/traces (the exporter only appends it itself when it reads the variable on its own).
  const url = `${config.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'tunnel-service', 'service.namespace': config.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
    },
  };
}
