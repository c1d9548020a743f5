import type * as OpenTelemetryApi from '@opentelemetry/api';
import type * as SdkTraceNode from '@opentelemetry/sdk-trace-node';
import type * as ExporterProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as Resources from '@opentelemetry/resources';
import { setTracing, tracingWanted } from './tracing';

/** The packages tracing needs; optional dependencies of @assistant/server (the hosted API's image has them). */
export const TRACING_PACKAGES = [
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/resources',
] as const;

let provider: SdkTraceNode.NodeTracerProvider | undefined;
/** Asked once per process: the hosted API asks before its Redis connections, `listen` again for both. */
let asked = false;

/**
 * Turns tracing on when the standard OpenTelemetry variables ask for it (see tracingWanted), once per process.
 * Only then are the SDK and the OTLP exporter loaded: when it is off, no module of OpenTelemetry is. Spans go out
 * in batches, as protobuf over HTTP, to the endpoint the variables name (the exporter reads them itself, headers
 * and timeouts included). Returns a warning when tracing was asked for and could not start (packages missing);
 * the server runs on without it.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (asked || !tracingWanted(env)) return undefined;
  asked = true;
  let modules;
  try {
    // Required here, not imported at the top: nothing of this is loaded when tracing is off.
    modules = {
      api: require('@opentelemetry/api') as typeof OpenTelemetryApi,
      sdk: require('@opentelemetry/sdk-trace-node') as typeof SdkTraceNode,
      exporter: require('@opentelemetry/exporter-trace-otlp-proto') as typeof ExporterProto,
      resources: require('@opentelemetry/resources') as typeof Resources,
    };
  } catch (error) {
    return `tracing is off: OTEL_EXPORTER_OTLP_ENDPOINT is set but ${(error as Error).message.split('\n')[0]}; install ${TRACING_PACKAGES.join(' ')}`;
  }
  const { api, sdk, exporter, resources } = modules;
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win over our default name.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new exporter.OTLPTraceExporter())],
  });
  // The AsyncLocalStorage context manager: a span started in a request is the parent of what the request awaits.
  provider.register();
  setTracing({ api, tracer: api.trace.getTracer('@assistant/server') });
  return undefined;
}

/** Sends the spans not yet sent and turns tracing off; a no-op when it is off. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  if (!stopping) return;
  provider = undefined;
  setTracing(undefined);
  await stopping.shutdown().catch(() => undefined);
}
