import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import {
  isTerminalEvent,
  problemOf,
  type CreateQuery,
  type Query,
  type QueryEventBody,
} from '@assistant/contracts';
import { ModelCatalog, runQuery, toolCallsOf } from '@assistant/agent-core';
import { familyInstructions } from '@assistant/tool-kit';
import { AuthError, type Principal } from '@assistant/auth';
import { newId, type Storage } from '@assistant/storage';
import {
  SERVER_CONFIG,
  STORAGE,
  type ServerConfig,
  ApiError,
  RUN_SLOTS,
  traceQueryRun,
  type ReleaseRunSlot,
  type RunSlots,
  type QueryEventLog,
  type QueryRecord,
  TOOL_CATALOGUE,
  type ToolCatalogue,
} from '@assistant/server-kit';
import { QUERY_EVENT_LOG } from './query-event-log.provider';
import { PendingConfirmations } from './pending-confirmations';
import { QuestionWrites } from './question-writes';
import { RUN_OBSERVER, type RunObserver } from './run-observer';
import { mayUseQuery, queryOwnerOf } from './query-owner';

/** How much of a discussion the model sees, and how many memories are recalled into its context. */
const HISTORY_MESSAGES = 40;
const RECALLED_MEMORIES = 5;
const TITLE_CHARS = 60;

/** A discussion started by a query is titled with the start of the question, cut at a word. */
export function titleFrom(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if (oneLine.length <= TITLE_CHARS) return oneLine;
  const cut = oneLine.slice(0, TITLE_CHARS);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 20 ? cut.lastIndexOf(' ') : TITLE_CHARS).trimEnd()}…`;
}

@Injectable()
export class QueriesService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('QueriesService');
  /**
   * Runs in progress on this process, by query id, so that they can be cancelled: one by one, those of a
   * discussion being deleted, or all at shutdown.
   */
  private readonly running = new Map<
    string,
    {
      userId: string;
      discussionId: string;
      controller: AbortController;
      done: Promise<unknown>;
      /** Stopped because the server stops: it ends `interrupted`, not `cancelled` (SPEC §4). */
      interrupted?: boolean;
    }
  >();
  /** False once the server drains for shutdown: new queries are refused (503), running ones may finish. */
  private accepting = true;

  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(QUERY_EVENT_LOG) private readonly log: QueryEventLog,
    @Inject(TOOL_CATALOGUE) private readonly catalog: ToolCatalogue,
    @Inject(RUN_SLOTS) private readonly runSlots: RunSlots,
    private readonly models: ModelCatalog,
    private readonly confirmations: PendingConfirmations,
    // From MetricsModule, which gives a no-op observer when metrics are off (so a missing one fails at start).
    @Inject(RUN_OBSERVER) private readonly observer: RunObserver,
  ) {}

  /**
   * Checks everything that can be refused with an ordinary HTTP error, reads what the model needs, and starts
   * the run in the background. The caller streams the run's events from the log; the run does not depend on it.
   *
   * Only what the model call needs comes before it. Storing the question (and a new discussion) and the query's
   * database record go on beside the model call (QuestionWrites);
   * the answer is stored only after the question, and before the terminal event (see `finish`).
   */
  async start(principal: Principal, body: CreateQuery): Promise<QueryRecord> {
    const { userId } = principal;
    if (!this.accepting) throw shuttingDown();
    const model = await this.models.pick(body.model);
    // Side by side: on PostgreSQL and Redis each is a round trip of its own. A refusal is the one the steps
    // would give one after another (an unknown tool, then no run slot, then an unknown discussion).
    const [runTools, slot, context] = await Promise.allSettled([
      this.catalog.forRun(principal, body.tools),
      this.reserveRun(userId),
      this.readContext(principal, body),
    ]);
    if (runTools.status === 'rejected' || slot.status === 'rejected' || context.status === 'rejected') {
      if (slot.status === 'fulfilled') slot.value();
      throw firstFailure([runTools, slot, context]);
    }
    const { tools, withheld } = runTools.value;
    const release = slot.value;
    const { discussionId, newDiscussionTitle, queryId, questionId, messageId, history, recalled, account } =
      context.value;
    const controller = new AbortController();
    const record = {
      id: queryId,
      userId,
      discussionId,
      messageId,
      model: model.name,
      owner: queryOwnerOf(principal),
      createdAt: new Date(),
    };
    const writes = new QuestionWrites(
      this.storage,
      this.logger,
      {
        userId,
        queryId,
        discussionId,
        newDiscussionTitle,
        questionId,
        text: body.text,
        // The query's record in the question's commit: one commit, not two.
        storeWith: [this.storage.queries.createStatement({ ...record, runnerId: this.log.runnerId })],
      },
      // No answer is stored without its question: the run stops, and ends failed (see `finish`).
      () => controller.abort(),
    );
    try {
      await this.log.open(record, { storedWith: writes.questionWritten });
    } catch (error) {
      writes.abandon();
      release();
      throw error;
    }
    const { questionStored } = writes;

    this.observer.runStarted(queryId, model.name);
    const done = traceQueryRun(queryId, model.name, (around) =>
      runQuery(
        {
          queryId,
          discussionId,
          messageId,
          userId,
          modelName: model.name,
          model: model.model,
          text: body.text,
          history,
          recalled,
          tools,
          instructions: familyInstructions(
            this.catalog.families,
            tools.map((tool) => tool.name),
          ),
          withheldTools: withheld,
          timeZone: this.config.queries.timeZone,
          userName: account.name,
          connections: runTools.value.connections,
          contextTokens: this.config.queries.contextTokens,
          confirm: (call) => this.confirmations.wait(queryId, call.callId, controller.signal),
          autoApproved: account.autoApprovedTools,
          // A tool may refer to the discussion (a saved memory links to it).
          toolsMayRun: questionStored,
          signal: controller.signal,
          limits: this.config.queries.limits,
          around,
        },
        (event) => {
          if (isTerminalEvent(event)) {
            writes.start();
            const terminal = this.running.get(queryId)?.interrupted ? interrupted(event) : event;
            return this.finish(queryId, terminal, questionStored);
          }
          this.observer.runEvent(queryId, event);
          this.log.append(queryId, event);
          if (event.type !== 'query.created') writes.modelAnswered();
        },
      ),
    )
      .catch(async (error: unknown) => {
        this.logger.error({ err: error, query_id: queryId, msg: 'run crashed' });
        writes.start();
        // Ends the query unless it has ended already (then this is a no-op).
        await this.finish(queryId, failed(queryId, 'internal', 'the run failed on our side'), questionStored);
      })
      .finally(() => {
        this.running.delete(queryId);
        release();
      });
    this.running.set(queryId, { userId, discussionId, controller, done });
    return (await this.log.get(queryId)) as QueryRecord;
  }

  /**
   * Takes one of the user's run slots (SPEC §7: in this process, or across the hosted service's instances), or
   * refuses with `rate_limited` (`service_unavailable` when the shared count cannot be reached); the returned
   * function gives it back (once).
   */
  private reserveRun(userId: string): Promise<ReleaseRunSlot> {
    return this.runSlots.take(userId);
  }

  /**
   * What the model needs before it is called: the discussion's history (an unknown discussion is a 404 here,
   * before any stream starts; a new one has none), the memories recalled for the question, and the ids.
   */
  private async readContext(principal: Principal, body: CreateQuery) {
    const { userId } = principal;
    if (body.discussion_id && !(await this.storage.discussions.get(userId, body.discussion_id))) {
      throw ApiError.notFound('discussion');
    }
    const [history, recalled, user] = await Promise.all([
      body.discussion_id
        ? this.storage.discussions.recentMessages(userId, body.discussion_id, HISTORY_MESSAGES)
        : [],
      // Memories go into the model's context only for a token that may read them (SPEC §2).
      principal.scopes.includes('read:memories')
        ? this.storage.memories.recall(userId, body.text, RECALLED_MEMORIES)
        : [],
      // What a language model is told of the account (its name; its connections come with the run's tools), and
      // the tools whose calls it approved for good.
      this.storage.users.findById(userId),
    ]);
    return {
      discussionId: body.discussion_id ?? newId('discussion'),
      newDiscussionTitle: body.discussion_id ? undefined : titleFrom(body.text),
      queryId: newId('query'),
      // The question's id before the answer's: message ids sort in conversation order.
      questionId: newId('message'),
      messageId: newId('message'),
      history: history.map((m) => ({ role: m.role, text: m.text })),
      recalled: recalled.map((m) => ({ content: m.content, created_at: m.createdAt.toISOString() })),
      account: { name: user?.displayName, autoApprovedTools: user?.autoApprovedTools ?? [] },
    };
  }

  /**
   * The query if this principal started it (SECURITY B2): another account's, and another token's of the same
   * account, are as good as missing (404). See `queryOwnerOf` for who the principal is.
   */
  async find(principal: Principal, queryId: string): Promise<QueryRecord> {
    const record = await this.log.get(queryId);
    if (!record || !mayUseQuery(record, principal)) throw ApiError.notFound('query');
    return record;
  }

  /**
   * The user's yes or no to a side-effecting call of their query that waits for it. Saying yes needs the tool's
   * own scope on the token that says it (a grant's refreshed token may have been narrowed); no needs none.
   */
  async confirm(
    principal: Principal,
    queryId: string,
    callId: string,
    approve: boolean,
  ): Promise<QueryRecord> {
    const record = await this.find(principal, queryId);
    const call = (await this.log.events(queryId)).find(
      (event) => event.type === 'tool_call.awaiting_confirmation' && event.call_id === callId,
    );
    if (!call || call.type !== 'tool_call.awaiting_confirmation') throw noSuchCall();
    if (record.endedAt)
      throw new ApiError('conflict', 'this query has ended: its calls can no longer be answered');
    if (approve) {
      const scope = this.scopeOf(call.tool);
      if (!scope)
        throw new ApiError('conflict', `${call.tool} is no longer offered here: it can only be refused`);
      if (!principal.scopes.includes(scope)) throw AuthError.insufficientScope(scope);
    }
    const result = await this.confirmations.answer(queryId, callId, approve);
    if (result === 'unknown') throw noSuchCall();
    if (result === 'already')
      throw new ApiError('conflict', 'this call was already answered (or its time ran out)');
    return (await this.log.get(queryId)) as QueryRecord;
  }

  async cancel(principal: Principal, queryId: string): Promise<QueryRecord> {
    const record = await this.find(principal, queryId);
    this.running.get(queryId)?.controller.abort();
    return record;
  }

  /** The scope a tool needs, as its family declares it; undefined for a tool this server no longer offers. */
  private scopeOf(toolName: string) {
    for (const family of this.catalog.families) {
      const tool = family.tools.find((t) => t.name === toolName);
      if (tool) return tool.scope;
    }
    return undefined;
  }

  /**
   * Cancels the user's runs in a discussion and waits until each has ended (`query.incomplete`, cancelled):
   * the discussion can then be deleted without a run failing for want of it.
   */
  async cancelRunsIn(userId: string, discussionId: string): Promise<void> {
    const runs = [...this.running.values()].filter(
      (run) => run.userId === userId && run.discussionId === discussionId,
    );
    for (const run of runs) run.controller.abort();
    await Promise.allSettled(runs.map((run) => run.done));
  }

  present(record: QueryRecord): Query {
    return {
      id: record.id,
      status: record.status,
      discussion_id: record.discussionId,
      message_id: record.messageId,
      model: record.model,
      created_at: record.createdAt.toISOString(),
      ended_at: record.endedAt?.toISOString() ?? null,
      last_event_id: record.lastEventId,
    };
  }

  /**
   * The first step of a graceful stop: refuse new queries (503), let running ones finish for up to `graceMs`, then
   * stop the rest, which end `query.incomplete` (`interrupted`), and wait until each terminal event is stored.
   * Called again meanwhile (a second signal) with a shorter grace, the shorter one wins.
   */
  async drain(graceMs: number): Promise<void> {
    this.accepting = false;
    const allEnded = () => Promise.allSettled([...this.running.values()].map((run) => run.done));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([allEnded(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const run of this.running.values()) {
      run.interrupted = true;
      run.controller.abort();
    }
    await allEnded();
  }

  /**
   * Before the HTTP server closes (it waits for open streams): stop every run still going (none after a drain),
   * so that each stream ends with its terminal event and the process stops promptly.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.drain(0);
    // No run is left to call a model: its keep-alive connections can go.
    await this.models.close();
  }

  /**
   * Stores a completed answer, then appends the terminal event: whoever hears the run is over can read the
   * answer in the discussion. A failed or cut-short run stores no half answer; neither does one whose question
   * could not be stored (it fails), and an answer is stored only once its question is.
   */
  private async finish(
    queryId: string,
    terminal: QueryEventBody,
    questionStored: Promise<boolean>,
  ): Promise<void> {
    const stored = await questionStored;
    const record = await this.log.get(queryId);
    if (!record || record.endedAt) return;
    if (!stored) {
      terminal = failed(queryId, 'internal', 'the question could not be stored');
    } else if (terminal.type === 'query.completed') {
      // The answer in the end's commit: one commit, and no end stored without its answer, nor the reverse.
      const answer = this.storage.discussions.appendMessageStatements(record.userId, record.discussionId, {
        id: record.messageId,
        role: 'assistant',
        text: terminal.text,
        toolCalls: toolCallsOf(await this.log.events(queryId)),
        queryId,
      });
      try {
        await this.log.end(queryId, terminal, undefined, { storeWith: answer.statements });
        this.observer.runEvent(queryId, terminal);
        return;
      } catch (error) {
        this.logger.error({ err: error, query_id: queryId, msg: 'could not store the answer' });
        terminal = failed(queryId, 'internal', 'the answer could not be stored');
      }
    }
    this.observer.runEvent(queryId, terminal);
    await this.log.end(queryId, terminal);
  }
}

/** A run stopped by the server's shutdown ends `interrupted` (the client may ask again elsewhere), not `cancelled`. */
function interrupted(terminal: QueryEventBody): QueryEventBody {
  return terminal.type === 'query.incomplete' && terminal.reason === 'cancelled'
    ? { ...terminal, reason: 'interrupted' }
    : terminal;
}

/** Why the first of `steps` that failed failed (one of them did). */
function firstFailure(steps: ReadonlyArray<PromiseSettledResult<unknown>>): unknown {
  return steps.find((step): step is PromiseRejectedResult => step.status === 'rejected')?.reason;
}

function noSuchCall(): ApiError {
  return new ApiError('not_found', 'no call of this query waits for a confirmation with this id');
}

function shuttingDown(): ApiError {
  return new ApiError('service_unavailable', 'the server is shutting down; send the query again', {
    headers: { 'retry-after': '1' },
  });
}

function failed(queryId: string, code: 'internal', detail: string): QueryEventBody {
  return { type: 'query.failed', error: problemOf(code, detail, queryId) };
}
