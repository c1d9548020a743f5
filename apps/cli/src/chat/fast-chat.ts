import { exitOnceWritten } from '../lib/exit-once-written';
import { parsePlainCommandLine } from '../lib/plain-command-line';
import { CHAT_FLAGS, type ChatFlagValues } from './chat-flags';
import { runChat } from './chat-run';

/** `chat`'s command line in its plain forms (see parsePlainCommandLine): at most one argument, the question. */
export function parseChatArguments(
  argv: readonly string[],
): { text: string | undefined; flags: ChatFlagValues } | undefined {
  const parsed = parsePlainCommandLine(argv, CHAT_FLAGS, 1);
  return parsed && { text: parsed.positionals[0], flags: parsed.flags };
}

/**
 * Runs `assistant chat` without loading oclif when its command line is plain (see parseChatArguments), and ends
 * the process; false when oclif must handle it. bin/run.js calls it first: oclif's start-up was most of the wall
 * time of a short question.
 */
export async function chatWithoutOclif(argv: readonly string[]): Promise<boolean> {
  const parsed = parseChatArguments(argv);
  if (!parsed) return false;
  const outcome = await runChat(parsed.text, parsed.flags);
  if (outcome.message) process.stderr.write(`assistant: ${outcome.message}\n`);
  exitOnceWritten(outcome.code);
  return true;
}
