import type { QueryEventBody } from '@assistant/contracts';
import type { RunObserver } from '@assistant/queries';
import type { ServerMetrics } from './server-metrics';

interface RunInProgress {
  model: string;
  startedAt: number;
  /** Whether the model's first output was seen (time to first token is measured once). */
  answered: boolean;
}

/** Counts runs, their outcomes, durations, the model's time to first output and tool calls from a run's events. */
export class RunMetrics implements RunObserver {
  private readonly runs = new Map<string, RunInProgress>();

  constructor(private readonly metrics: ServerMetrics) {}

  runStarted(queryId: string, model: string): void {
    this.runs.set(queryId, { model, startedAt: performance.now(), answered: false });
    this.metrics.runsStarted.inc({ model });
    this.metrics.runsInProgress.inc();
  }

  runEvent(queryId: string, event: QueryEventBody): void {
    const run = this.runs.get(queryId);
    if (!run) return;
    switch (event.type) {
      case 'output_text.delta':
      case 'tool_call.started':
        if (!run.answered) {
          run.answered = true;
          this.metrics.modelFirstOutput.observe({ model: run.model }, elapsedSeconds(run));
        }
        return;
      case 'tool_call.completed':
        this.metrics.toolCalls.inc({ tool: event.tool, status: event.status });
        return;
      case 'query.completed':
      case 'query.failed':
      case 'query.incomplete': {
        const outcome = event.type.slice('query.'.length);
        const reason =
          event.type === 'query.incomplete'
            ? event.reason
            : event.type === 'query.failed'
              ? event.error.code
              : '';
        this.runs.delete(queryId);
        this.metrics.runsInProgress.dec();
        this.metrics.runsEnded.inc({ outcome, reason });
        this.metrics.runDuration.observe({ outcome }, elapsedSeconds(run));
        return;
      }
      default:
        return;
    }
  }
}

const elapsedSeconds = (run: RunInProgress) => (performance.now() - run.startedAt) / 1000;
