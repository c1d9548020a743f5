import type * as PromClient from 'prom-client';

/**
 * prom-client, required when a server with metrics makes its registry: a server without a metrics port does not
 * load it (with the tracing API it brings, ~35 ms of start-up).
 */
const prom = (): typeof PromClient => require('prom-client') as typeof PromClient;

/**
 * Every Prometheus metric of one server, in a registry of its own (several servers may share a process in
 * tests). Labels take few values: route templates, never URLs; status classes; model and tool names.
 */
export class ServerMetrics {
  readonly registry = new (prom().Registry)();

  readonly httpRequestDuration = new (prom().Histogram)({
    name: 'assistant_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (event streams excepted), by route template, method and status class; its _count counts the requests',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly openEventStreams = new (prom().Gauge)({
    name: 'assistant_open_event_streams',
    help: 'Responses in progress on the event-stream routes (a query and its resumptions)',
    registers: [this.registry],
  });

  readonly runsStarted = new (prom().Counter)({
    name: 'assistant_runs_started_total',
    help: 'Query runs started, by model',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });

  readonly runsInProgress = new (prom().Gauge)({
    name: 'assistant_runs_in_progress',
    help: 'Query runs going on in this process',
    registers: [this.registry],
  });

  readonly runsEnded = new (prom().Counter)({
    name: 'assistant_runs_ended_total',
    help: 'Query runs ended, by terminal event (completed, failed, incomplete) and its reason or error code',
    labelNames: ['outcome', 'reason'] as const,
    registers: [this.registry],
  });

  readonly runDuration = new (prom().Histogram)({
    name: 'assistant_run_duration_seconds',
    help: 'From the start of a run to its terminal event, by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
    registers: [this.registry],
  });

  readonly modelFirstOutput = new (prom().Histogram)({
    name: 'assistant_model_first_output_seconds',
    help: "From the start of a run to the model's first output (text or a tool call): time to first token, by model",
    labelNames: ['model'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [this.registry],
  });

  readonly toolCalls = new (prom().Counter)({
    name: 'assistant_tool_calls_total',
    help: 'Tool calls of query runs, by tool and status (ok, error, denied)',
    labelNames: ['tool', 'status'] as const,
    registers: [this.registry],
  });

  constructor() {
    // The process's own: CPU, memory, heap, event-loop lag, handles, GC.
    prom().collectDefaultMetrics({ register: this.registry });
  }
}
