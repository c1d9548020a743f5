import type * as OpenTelemetryApi from '@opentelemetry/api';

/**
 * Tracing of this process, when it is on: the OpenTelemetry API and our tracer. Everything that traces asks
 * `tracing()` once (at set-up where it can, else once per request or run) and does nothing more when it is off.
 * Only types come from OpenTelemetry here: its modules are loaded by `startTracing`, and only when it is on.
 */
export interface Tracing {
  api: typeof OpenTelemetryApi;
  tracer: OpenTelemetryApi.Tracer;
}

let active: Tracing | undefined;

/** The process's tracing, or undefined when it is off (the usual case). */
export function tracing(): Tracing | undefined {
  return active;
}

/** Set by startTracing and stopTracing only. */
export function setTracing(value: Tracing | undefined): void {
  active = value;
}

/**
 * The standard variables decide: an OTLP endpoint for traces (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and the SDK not disabled (`OTEL_SDK_DISABLED=true`) nor its traces
 * exporter set to `none`.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  if (!endpoint) return false;
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  return env['OTEL_TRACES_EXPORTER']?.trim().toLowerCase() !== 'none';
}

/** The attributes of a span that ended badly: its status only, never the error's message (it may quote input). */
export function markFailed(span: OpenTelemetryApi.Span, api: Tracing['api'], error: unknown): void {
  span.setStatus({ code: api.SpanStatusCode.ERROR });
  span.setAttribute('error.type', error instanceof Error ? error.name : 'error');
}

/** Ends `span` when `pending` settles, failed if it rejects; settles as `pending` does. */
export function endWhenSettled<T>(
  span: OpenTelemetryApi.Span,
  api: Tracing['api'],
  pending: PromiseLike<T>,
): Promise<T> {
  return Promise.resolve(pending).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      markFailed(span, api, error);
      span.end();
      throw error;
    },
  );
}
