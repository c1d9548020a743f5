import { OperatorError } from '@assistant/contracts';
import type { RunningServer } from './running-server';

/** One line for the operator's mistakes (configuration, database, port); a stack only for real bugs. */
export function describeStartupError(error: unknown): string {
  if (error instanceof OperatorError) return `assistant: ${error.message}`;
  return `assistant: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}

/**
 * Stops the server gracefully on SIGINT/SIGTERM (RunningServer.shutdown: running queries get their grace), so that
 * the database and the data-directory lock are released; a second signal ends the running queries at once, a
 * third leaves the process to the signal's default (it dies).
 */
export function closeOnSignals(server: RunningServer, onClosed: () => void = () => process.exit(0)): void {
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      const grace = Math.round(server.shutdownGraceMs / 1000);
      process.stderr.write(
        `assistant: ${signal} received, stopping: running queries have ${grace} s to finish (${signal} again to end them now)\n`,
      );
      server.shutdown().then(onClosed, (error: unknown) => {
        process.stderr.write(`assistant: error while stopping: ${String(error)}\n`);
        process.exit(1);
      });
      return;
    }
    process.stderr.write(`assistant: ${signal} received again, ending the running queries now\n`);
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    void server.close().catch(() => undefined);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
