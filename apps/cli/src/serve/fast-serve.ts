import { exitOnceWritten } from '../lib/exit-once-written';
import { parsePlainCommandLine } from '../lib/plain-command-line';
import { SERVE_FLAGS } from './serve-flags';
import { runServe } from './serve-run';

/**
 * Runs `assistant serve` without loading oclif when its command line is plain (no argument; see
 * parsePlainCommandLine); false when oclif must handle it. bin/run.js calls it first: oclif's loading was
 * ~70 ms of CPU before the server could start.
 */
export async function serveWithoutOclif(argv: readonly string[]): Promise<boolean> {
  const parsed = parsePlainCommandLine(argv, SERVE_FLAGS, 0);
  if (!parsed) return false;
  const outcome = await runServe(parsed.flags);
  if (outcome.code === 0) {
    process.stdout.write(`${outcome.output}\n`);
  } else {
    process.stderr.write(`${outcome.message}\n`);
    exitOnceWritten(outcome.code);
  }
  return true;
}
