// This module is the lazy boundary itself: oclif's command imports it inside run() and bin/run.js's fast path
// requires it only for `chat`. Static here, so that Node's CommonJS loader takes the client directly instead of
// going through the ESM loader that a dynamic import() uses.
// eslint-disable-next-line @nx/enforce-module-boundaries
import * as lib from '@assistant/client';
import type { AssistantClient, CreateQuery, QueryEvent } from '@assistant/client';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { resolveConnection, type ResolvedConnection } from '@assistant/client/local';
import { tokenSource, unreachable, type ClientModule } from '../lib/request-failures';
import type { ChatFlagValues } from './chat-flags';
import { EXIT_CODES } from './exit-codes';

/** How the run ended: the exit code, and the line for stderr when it is not 0. */
export interface Outcome {
  code: number;
  message?: string;
}

export const EXIT_USAGE = EXIT_CODES.usage.code;
const EXIT_INTERRUPTED = EXIT_CODES.interrupted.code;

/**
 * `assistant chat` once its command line is parsed (by oclif or by the fast path): asks, streams the answer, and
 * says how it ended. This module imports the client and nothing of the server; it is loaded only to run `chat`
 * (the oclif command imports it inside `run()`, so that `assistant --help` stays fast).
 */
export async function runChat(textArgument: string | undefined, flags: ChatFlagValues): Promise<Outcome> {
  // Trailing blank lines (`echo … |`) are not part of the question.
  const text = (textArgument === '-' ? await readStdin() : (textArgument ?? '')).replace(/\s+$/, '');
  if (text.trim() === '') {
    return {
      code: EXIT_USAGE,
      message:
        textArgument === '-'
          ? 'stdin was empty: nothing to ask'
          : 'give the text of the query, e.g. assistant chat "hello" (or - to read it from stdin); see assistant chat --help',
    };
  }

  let connection: ResolvedConnection;
  let client: AssistantClient;
  try {
    connection = resolveConnection({
      url: flags.url,
      token: flags.token,
      dataDir: flags['data-dir'],
    });
    // Not checking each event against the contract's schemas spares loading zod and them (~60 ms of CPU, a third
    // of a short question's wall time); the events are still read by type, and unknown types still skipped.
    client = new lib.AssistantClient({
      baseUrl: connection.baseUrl,
      token: connection.token,
      validateResponses: false,
    });
  } catch (error) {
    return { code: EXIT_CODES.failed.code, message: error instanceof Error ? error.message : String(error) };
  }

  const body: CreateQuery = { text };
  if (flags.discussion) body.discussion_id = flags.discussion;
  if (flags.model) body.model = flags.model;
  const tools = flags.tools
    ?.split(',')
    .map((tool) => tool.trim())
    .filter(Boolean);
  if (tools?.length) body.tools = tools;

  // A question read from stdin leaves no stdin to answer a confirmation on.
  const canAsk = Boolean(process.stdin.isTTY) && textArgument !== '-';
  return new QueryRun(lib, client, connection, {
    json: flags.json ?? false,
    approve: flags.yes ? 'always' : canAsk ? 'ask' : 'never',
  }).run(body);
}

/** One query: streams the events to the terminal and decides how the command ends. */
class QueryRun {
  private readonly stderrIsTty = Boolean(process.stderr.isTTY);
  private readonly colors = this.stderrIsTty && !process.env['NO_COLOR'] && process.env['TERM'] !== 'dumb';
  private readonly controller = new AbortController();
  private queryId: string | undefined;
  private discussionId: string | undefined;
  /** Whether the answer's text on stdout ends a line (so that other lines do not land in the middle). */
  private atLineStart = true;
  private wroteText = false;
  private interrupted = false;
  private stdoutClosed = false;
  /** The actions (tool calls) of the run that were refused, and those that failed, with their errors. */
  private readonly refused: string[] = [];
  private readonly failed: string[] = [];

  constructor(
    private readonly lib: ClientModule,
    private readonly client: AssistantClient,
    private readonly connection: ResolvedConnection,
    private readonly options: { json: boolean; approve: 'always' | 'ask' | 'never' },
  ) {}

  async run(body: CreateQuery): Promise<Outcome> {
    const onSigint = () => void this.interrupt();
    process.on('SIGINT', onSigint);
    // The reader went away (`… | head`): stop quietly. Left in place, so that a late write cannot crash.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      this.stdoutClosed = true;
      if (error.code === 'EPIPE') this.controller.abort();
    });
    let outcome: Outcome;
    try {
      outcome = await this.consume(body);
    } catch (error) {
      outcome = this.interrupted
        ? { code: EXIT_INTERRUPTED, message: this.queryId ? `cancelled query ${this.queryId}` : 'cancelled' }
        : this.controller.signal.aborted
          ? { code: 0 }
          : { code: EXIT_CODES.failed.code, message: this.describe(error) };
    } finally {
      process.off('SIGINT', onSigint);
    }
    if (!this.options.json && this.wroteText && !this.atLineStart) {
      this.writeOut('\n');
      this.atLineStart = true;
    }
    if (this.discussionId && this.stderrIsTty && outcome.code !== EXIT_INTERRUPTED) {
      this.note(
        `discussion ${this.discussionId} · continue with: assistant chat --discussion ${this.discussionId} "…"`,
        outcome.message !== undefined,
      );
    }
    return outcome;
  }

  private async consume(body: CreateQuery): Promise<Outcome> {
    for await (const event of this.client.streamQuery(body, { signal: this.controller.signal })) {
      if (this.options.json) this.writeOut(`${JSON.stringify(event)}\n`);
      const outcome = await this.handle(event);
      if (outcome) return outcome;
    }
    // The client only ends the iteration after a terminal event, which returned above.
    return { code: EXIT_CODES.failed.code, message: 'the stream ended without a result' };
  }

  private async handle(event: QueryEvent): Promise<Outcome | undefined> {
    switch (event.type) {
      case 'query.created':
        this.queryId = event.query_id;
        this.discussionId = event.discussion_id;
        return undefined;
      case 'output_text.delta':
        if (!this.options.json) this.writeText(event.delta);
        return undefined;
      case 'tool_call.started':
        this.activity(`→ ${event.tool}${describeArguments(event.arguments)}`);
        return undefined;
      case 'tool_call.completed':
        this.activity(
          `← ${event.tool}: ${event.status}${event.error ? ` (${oneLine(event.error, 100)})` : ''}`,
        );
        if (event.status === 'denied') this.refused.push(event.tool);
        if (event.status === 'error')
          this.failed.push(`${event.tool}${event.error ? ` (${oneLine(event.error, 200)})` : ''}`);
        return undefined;
      case 'tool_call.awaiting_confirmation':
        await this.confirm(event);
        return undefined;
      case 'memory.saved':
        this.activity(`✓ remembered: ${oneLine(event.content, 80)}`);
        return undefined;
      case 'query.completed':
        // A model that does not stream still gives the whole text here.
        if (!this.options.json && !this.wroteText) this.writeText(event.text);
        return this.completed();
      case 'query.failed':
        return { code: EXIT_CODES.failed.code, message: `the query failed: ${event.error.detail}` };
      case 'query.incomplete':
        return {
          code: EXIT_CODES.failed.code,
          message: `the query did not complete: ${INCOMPLETE_REASONS[event.reason]}`,
        };
      default:
        return undefined;
    }
  }

  /** An answer is a success only when every action of it was done: a refused or failed one says so, non-zero. */
  private completed(): Outcome {
    if (this.failed.length > 0) {
      return { code: EXIT_CODES.toolFailed.code, message: `not done: ${this.failed.join('; ')} failed` };
    }
    if (this.refused.length > 0) {
      const were = this.refused.length > 1 ? 'were' : 'was';
      return {
        code: EXIT_CODES.refused.code,
        message: `not done: ${this.refused.join(', ')} ${were} refused`,
      };
    }
    return { code: EXIT_CODES.ok.code };
  }

  /**
   * A call that changes something waits for the user: approved with --yes, asked about on a terminal (y/N,
   * no by default), refused when there is no one to ask. The answer goes to the server, which runs or refuses it.
   */
  private async confirm(
    event: Extract<QueryEvent, { type: 'tool_call.awaiting_confirmation' }>,
  ): Promise<void> {
    this.endTextLine();
    const what = `${event.tool}${describeArguments(event.arguments, 300)}`;
    let approve: boolean;
    if (this.options.approve === 'always') {
      approve = true;
      this.note(`approved (--yes): ${what}`, false);
    } else if (this.options.approve === 'ask') {
      approve = await askYesNo(`Allow ${what}? [y/N] `);
    } else {
      approve = false;
      process.stderr.write(
        `assistant: refused ${what}: no terminal to ask for a confirmation (approve with --yes)\n`,
      );
    }
    await this.client.confirmToolCall({
      id: this.queryId as string,
      call_id: event.call_id,
      body: { approve },
    });
  }

  /** Ctrl+C: cancel the run on the server (best effort), stop the stream; a second Ctrl+C exits at once. */
  private async interrupt(): Promise<void> {
    if (this.interrupted) process.exit(EXIT_INTERRUPTED);
    this.interrupted = true;
    if (this.queryId) {
      await this.client
        .cancelQuery({ id: this.queryId }, { signal: AbortSignal.timeout(2_000) })
        .catch(() => undefined);
    }
    this.controller.abort();
  }

  private describe(error: unknown): string {
    const { lib, connection } = this;
    const url = connection.baseUrl;
    const tokenFrom = tokenSource(connection);
    const offline = unreachable(lib, connection, error);
    if (offline) return offline;
    if (error instanceof lib.ApiRequestError) {
      const detail = error.detail;
      switch (error.status) {
        case 401:
          return `the server at ${url} refused the token from ${tokenFrom} (${detail})${
            connection.source === 'credentials' ? '; restart `assistant serve` to write a new one' : ''
          }`;
        case 403:
          return error.requiredScope
            ? `the token from ${tokenFrom} lacks the ${error.requiredScope} scope`
            : `the token from ${tokenFrom} is not allowed to do this: ${detail}`;
        case 422: {
          const fields = (error.problem.errors ?? [])
            .filter((field) => !detail.includes(field.message))
            .map((field) => `${field.field}: ${field.message}`);
          return fields.length > 0 ? `${detail} (${fields.join('; ')})` : detail;
        }
        case 429:
          return error.retryAfter !== undefined ? `${detail}; try again in ${error.retryAfter} s` : detail;
        default:
          return error.code === 'internal' ? `the server failed (${error.status}): ${detail}` : detail;
      }
    }
    if (error instanceof lib.StreamInterruptedError) {
      return error.queryId
        ? `lost the connection to ${url} during query ${error.queryId}; the answer will still be saved${
            this.discussionId ? ` in discussion ${this.discussionId}` : ''
          }`
        : `the connection to ${url} broke before the query started`;
    }
    if (error instanceof Error) return error.message;
    return String(error);
  }

  private writeText(text: string): void {
    if (!text) return;
    this.writeOut(text);
    this.wroteText = true;
    this.atLineStart = text.endsWith('\n');
  }

  private writeOut(text: string): void {
    if (this.stdoutClosed) return;
    process.stdout.write(text);
  }

  /** When the answer and these lines share a terminal, start them on a line of their own. */
  private endTextLine(): void {
    if (!this.atLineStart && process.stdout.isTTY && this.stderrIsTty) {
      this.writeOut('\n');
      this.atLineStart = true;
    }
  }

  private activity(line: string): void {
    if (!this.stderrIsTty || this.options.json) return;
    this.endTextLine();
    process.stderr.write(`${this.dim(line)}\n`);
  }

  private note(line: string, afterError: boolean): void {
    if (afterError) this.endTextLine();
    process.stderr.write(`${this.dim(line)}\n`);
  }

  private dim(text: string): string {
    return this.colors ? `\u001b[2m${text}\u001b[22m` : text;
  }
}

const INCOMPLETE_REASONS: Record<Extract<QueryEvent, { type: 'query.incomplete' }>['reason'], string> = {
  cancelled: 'it was cancelled',
  max_steps: 'it reached the limit of tool steps',
  timeout: 'it ran out of time',
  confirmation_timeout: 'a tool call waited too long for confirmation',
  interrupted: 'the server stopped during it',
};

function describeArguments(args: Record<string, unknown>, max = 80): string {
  const json = JSON.stringify(args);
  return json === '{}' ? '' : ` ${oneLine(json, max)}`;
}

/** Asks on the terminal; only "y" or "yes" is a yes. */
async function askYesNo(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question(question)).trim());
  } finally {
    terminal.close();
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
