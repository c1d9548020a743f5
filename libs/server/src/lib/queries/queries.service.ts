import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import {
  isTerminalEvent,
  problemOf,
  type CreateQuery,
  type Query,
  type QueryEventBody,
} from '@assistant/contracts';
import { ModelCatalog, runQuery, toolCallsOf } from '@assistant/agent-core';
import type { ToolFamily } from '@assistant/tool-kit';
import type { Principal } from '@assistant/auth';
import { newId, type Storage } from '@assistant/storage';
import { SERVER_CONFIG, STORAGE } from '../core.module';
import type { ServerConfig } from '../config/server-config';
import { ApiError } from '../http/api-error';
import { QUERY_EVENT_LOG } from './query-event-log.provider';
import { TOOL_FAMILIES, ToolCatalog } from '../tools/tool-catalog';
import { PendingConfirmations } from './pending-confirmations';
import type { QueryEventLog, QueryRecord } from './query-event-log';

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
    { userId: string; discussionId: string; controller: AbortController; done: Promise<unknown> }
  >();
  /** Runs in progress (or being prepared) per user, for the concurrent-run cap (SPEC §7). */
  private readonly slots = new Map<string, number>();
  private readonly models: ModelCatalog;
  private readonly confirmations: PendingConfirmations;

  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(QUERY_EVENT_LOG) private readonly log: QueryEventLog,
    private readonly catalog: ToolCatalog,
    @Inject(TOOL_FAMILIES) families: readonly ToolFamily[],
  ) {
    // The built-in model knows every family's phrasings; each run's tools decide what it can do.
    this.models = new ModelCatalog(config.queries.models, families);
    this.confirmations = new PendingConfirmations(config.queries.confirmationTimeoutMs);
  }

  /**
   * Checks everything that can be refused with an ordinary HTTP error, stores the question, and starts the
   * run in the background. The caller streams the run's events from the log; the run does not depend on it.
   */
  async start(principal: Principal, body: CreateQuery): Promise<QueryRecord> {
    const { userId } = principal;
    const model = await this.models.pick(body.model);
    const { tools, withheld } = await this.catalog.forRun(principal, body.tools);
    const release = this.reserveRun(userId);
    let prepared;
    try {
      prepared = await this.prepare(principal, body);
    } catch (error) {
      release();
      throw error;
    }
    const { discussionId, queryId, messageId, history, recalled, autoApproved } = prepared;
    try {
      await this.log.open({
        id: queryId,
        userId,
        discussionId,
        messageId,
        model: model.name,
        createdAt: new Date(),
      });
    } catch (error) {
      release();
      throw error;
    }

    const controller = new AbortController();
    const done = runQuery(
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
        withheldTools: withheld,
        timeZone: this.config.queries.timeZone,
        confirm: (call) => this.confirmations.wait(queryId, call.callId, controller.signal),
        autoApproved,
        signal: controller.signal,
        limits: this.config.queries.limits,
      },
      (event) =>
        isTerminalEvent(event) ? this.finish(queryId, event) : void this.log.append(queryId, event),
    )
      .catch(async (error: unknown) => {
        this.logger.error({ err: error, query_id: queryId, msg: 'run crashed' });
        // Ends the query unless it has ended already (then this is a no-op).
        await this.finish(queryId, failed(queryId, 'internal', 'the run failed on our side'));
      })
      .finally(() => {
        this.running.delete(queryId);
        release();
      });
    this.running.set(queryId, { userId, discussionId, controller, done });
    return (await this.log.get(queryId)) as QueryRecord;
  }

  /**
   * Takes one of the user's run slots at once, before any await, so that simultaneous requests cannot all pass
   * the check; the returned function gives it back (once).
   */
  private reserveRun(userId: string): () => void {
    const taken = this.slots.get(userId) ?? 0;
    if (taken >= this.config.queries.maxConcurrentPerUser) {
      throw new ApiError(
        'rate_limited',
        `${taken} queries are already running for this account; wait for one to finish`,
        { headers: { 'retry-after': '5' } },
      );
    }
    this.slots.set(userId, taken + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.slots.get(userId) ?? 1) - 1;
      if (left > 0) this.slots.set(userId, left);
      else this.slots.delete(userId);
    };
  }

  /** Finds or starts the discussion, reads what the model may see, and stores the question. */
  private async prepare(principal: Principal, body: CreateQuery) {
    const { userId } = principal;
    const discussion = body.discussion_id
      ? await this.storage.discussions.get(userId, body.discussion_id)
      : await this.storage.discussions.create(userId, titleFrom(body.text));
    if (!discussion) throw ApiError.notFound('discussion');
    const history = await this.storage.discussions.recentMessages(userId, discussion.id, HISTORY_MESSAGES);
    // Memories go into the model's context only for a token that may read them (SPEC §2).
    const recalled = principal.scopes.includes('read:memories')
      ? await this.storage.memories.recall(userId, body.text, RECALLED_MEMORIES)
      : [];
    const queryId = newId('query');
    await this.storage.discussions.appendMessage(userId, discussion.id, {
      role: 'user',
      text: body.text,
      queryId,
    });
    // The tools this account lets the assistant use without asking (PATCH /me).
    const autoApproved = (await this.storage.users.findById(userId))?.autoApprovedTools ?? [];
    return {
      autoApproved,
      discussionId: discussion.id,
      queryId,
      // Allocated after the question is stored: message ids sort in conversation order.
      messageId: newId('message'),
      history: history.map((m) => ({ role: m.role, text: m.text })),
      recalled: recalled.map((m) => ({ content: m.content, created_at: m.createdAt.toISOString() })),
    };
  }

  /** The query if it belongs to this user; anyone else's is as good as missing (404). */
  async find(userId: string, queryId: string): Promise<QueryRecord> {
    const record = await this.log.get(queryId);
    if (!record || record.userId !== userId) throw ApiError.notFound('query');
    return record;
  }

  /** The user's yes or no to a side-effecting call of their query that waits for it. */
  async confirm(userId: string, queryId: string, callId: string, approve: boolean): Promise<QueryRecord> {
    await this.find(userId, queryId);
    const result = this.confirmations.answer(queryId, callId, approve);
    if (result === 'unknown')
      throw new ApiError('not_found', 'no call of this query waits for a confirmation with this id');
    if (result === 'already')
      throw new ApiError('conflict', 'this call was already answered (or its time ran out)');
    return (await this.log.get(queryId)) as QueryRecord;
  }

  async cancel(userId: string, queryId: string): Promise<QueryRecord> {
    const record = await this.find(userId, queryId);
    this.running.get(queryId)?.controller.abort();
    return record;
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
   * Before the HTTP server closes (it waits for open streams): cancel every run, so that each stream ends
   * with its terminal event and the process stops promptly instead of waiting for answers to finish.
   */
  async beforeApplicationShutdown(): Promise<void> {
    for (const run of this.running.values()) run.controller.abort();
    await Promise.allSettled([...this.running.values()].map((run) => run.done));
  }

  /**
   * Stores a completed answer, then appends the terminal event: whoever hears the run is over can read the
   * answer in the discussion. A failed or cut-short run stores no half answer.
   */
  private async finish(queryId: string, terminal: QueryEventBody): Promise<void> {
    const record = await this.log.get(queryId);
    if (!record || record.endedAt) return;
    if (terminal.type === 'query.completed') {
      try {
        await this.storage.discussions.appendMessage(record.userId, record.discussionId, {
          id: record.messageId,
          role: 'assistant',
          text: terminal.text,
          toolCalls: toolCallsOf(await this.log.events(queryId)),
          queryId,
        });
      } catch (error) {
        this.logger.error({ err: error, query_id: queryId, msg: 'could not store the answer' });
        terminal = failed(queryId, 'internal', 'the answer could not be stored');
      }
    }
    await this.log.end(queryId, terminal);
  }
}

function failed(queryId: string, code: 'internal', detail: string): QueryEventBody {
  return { type: 'query.failed', error: problemOf(code, detail, queryId) };
}
