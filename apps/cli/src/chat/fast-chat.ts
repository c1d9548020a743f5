import { parseArgs } from 'node:util';
import { CHAT_FLAGS, type ChatFlagValues } from './chat-flags';
import { runChat } from './chat-run';

/** CHAT_FLAGS as node:util's parseArgs takes them. */
const OPTIONS = Object.fromEntries(
  Object.entries(CHAT_FLAGS).map(([name, spec]) => [
    name,
    { type: spec.type === 'boolean' ? 'boolean' : 'string', ...('char' in spec ? { short: spec.char } : {}) },
  ]),
) as Record<string, { type: 'boolean' | 'string'; short?: string }>;

/**
 * `chat`'s command line in its plain forms: at most one argument, each flag once, long flags with or without `=`,
 * short ones alone (`-y`, `-d dsc_…`). Anything else — help, an unknown or repeated flag, a missing or empty
 * value, a cluster such as `-yd`, a second argument — is undefined and left to oclif, whose messages stay the
 * only ones for mistakes.
 */
export function parseChatArguments(
  argv: readonly string[],
): { text: string | undefined; flags: ChatFlagValues } | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch {
    return undefined;
  }
  if (parsed.positionals.length > 1) return undefined;
  const options = parsed.tokens.filter((token) => token.kind === 'option');
  const names = new Set(options.map((token) => token.name));
  const places = new Set(options.map((token) => token.index));
  if (names.size !== options.length || places.size !== options.length) return undefined;
  const shortWithValueAttached = options.some(
    (token) => !token.rawName.startsWith('--') && token.inlineValue,
  );
  const emptyValue = options.some((token) => token.value === '');
  if (shortWithValueAttached || emptyValue) return undefined;
  return { text: parsed.positionals[0], flags: parsed.values as ChatFlagValues };
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

/**
 * Exits as soon as stdout and stderr have taken what was written. Left to itself, Node waited another
 * 100–300 ms after the answer (on a busy machine) for V8's background work — compilation and GC tasks that a
 * finished command has no use for — before it ended.
 */
function exitOnceWritten(code: number): void {
  let pending = 2;
  const written = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', written);
  process.stderr.write('', written);
}
