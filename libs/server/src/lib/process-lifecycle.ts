import { OperatorError } from '@assistant/contracts';
import type { RunningServer } from './running-server';

/** One line for the operator's mistakes (configuration, database, port); a stack only for real bugs. */
export function describeStartupError(error: unknown): string {
  if (error instanceof OperatorError) return `assistant: ${error.message}`;
  return `assistant: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}

/** Closes the server cleanly on SIGINT/SIGTERM, so that the database and the data-directory lock are released. */
export function closeOnSignals(server: RunningServer, onClosed: () => void = () => process.exit(0)): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`assistant: ${signal} received, stopping\n`);
    server.close().then(onClosed, (error: unknown) => {
      process.stderr.write(`assistant: error while stopping: ${String(error)}\n`);
      process.exit(1);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
