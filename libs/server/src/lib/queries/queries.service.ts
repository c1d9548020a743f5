import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import {
  isTerminalEvent,
  problemOf,
  type CreateQuery,
  type Query,
  type QueryEventBody,
} from '@assistant/contracts';
import { ModelCatalog, ModelUnavailableError, runQuery, toolCallsOf } from '@assistant/agent-core';
import { allowedTools, memoryTools, type MemoryDriver, type ToolDefinition } from '@assistant/tool-adapters';
import type { Principal } from '@assistant/auth';
import { newId, type Storage } from '@assistant/storage';
import { SERVER_CONFIG, STORAGE } from '../core.module';
import type { ServerConfig } from '../config/server-config';
import { ApiError } from '../http/api-error';
import { QUERY_EVENT_LOG } from './queries.tokens';
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
  /** Runs in progress on this process, by query id, so that they can be cancelled (one by one, or all at shutdown). */
  private readonly running = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  /** Runs in progress (or being prepared) per user, for the concurrent-run cap (SPEC §7). */
  private readonly slots = new Map<string, number>();
  private readonly tools: ToolDefinition[];
  private readonly models: ModelCatalog;

  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(QUERY_EVENT_LOG) private readonly log: QueryEventLog,
  ) {
    this.tools = memoryTools(this.memoryDriver());
    this.models = new ModelCatalog(config.queries.models);
  }

  /**
   * Checks everything that can be refused with an ordinary HTTP error, stores the question, and starts the
   * run in the background. The caller streams the run's events from the log; the run does not depend on it.
   */
  async start(principal: Principal, body: CreateQuery): Promise<QueryRecord> {
    const { userId } = principal;
    const model = await this.pickModel(body.model);
    const tools = this.toolsFor(principal, body.tools);
    const release = this.reserveRun(userId);
    let prepared;
    try {
      prepared = await this.prepare(principal, body);
    } catch (error) {
      release();
      throw error;
    }
    const { discussionId, queryId, messageId, history, recalled } = prepared;
    this.log.open({ id: queryId, userId, discussionId, messageId, model: model.name, createdAt: new Date() });

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
        signal: controller.signal,
        limits: this.config.queries.limits,
      },
      (event) =>
        isTerminalEvent(event) ? this.finish(queryId, event) : void this.log.append(queryId, event),
    )
      .catch((error: unknown) => {
        this.logger.error({ err: error, query_id: queryId, msg: 'run crashed' });
        if (this.log.get(queryId)?.status === 'running') {
          return this.finish(queryId, failed(queryId, 'internal', 'the run failed on our side'));
        }
      })
      .finally(() => {
        this.running.delete(queryId);
        release();
      });
    this.running.set(queryId, { controller, done });
    return this.log.get(queryId) as QueryRecord;
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
        undefined,
        { 'retry-after': '5' },
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
    return {
      discussionId: discussion.id,
      queryId,
      // Allocated after the question is stored: message ids sort in conversation order.
      messageId: newId('message'),
      history: history.map((m) => ({ role: m.role, text: m.text })),
      recalled: recalled.map((m) => ({ content: m.content, created_at: m.createdAt.toISOString() })),
    };
  }

  private async pickModel(requested: string | undefined) {
    try {
      return await this.models.pick(requested);
    } catch (error) {
      if (error instanceof ModelUnavailableError) throw new ApiError('model_unavailable', error.message);
      throw error;
    }
  }

  /** The query if it belongs to this user; anyone else's is as good as missing (404). */
  find(userId: string, queryId: string): QueryRecord {
    const record = this.log.get(queryId);
    if (!record || record.userId !== userId) throw ApiError.notFound('query');
    return record;
  }

  cancel(userId: string, queryId: string): QueryRecord {
    const record = this.find(userId, queryId);
    this.running.get(queryId)?.controller.abort();
    return record;
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
      last_event_id: this.log.events(record.id).length,
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
    const record = this.log.get(queryId);
    if (!record) return;
    if (terminal.type === 'query.completed') {
      try {
        await this.storage.discussions.appendMessage(record.userId, record.discussionId, {
          id: record.messageId,
          role: 'assistant',
          text: terminal.text,
          toolCalls: toolCallsOf(this.log.events(queryId)),
          queryId,
        });
      } catch (error) {
        this.logger.error({ err: error, query_id: queryId, msg: 'could not store the answer' });
        terminal = failed(queryId, 'internal', 'the answer could not be stored');
      }
    }
    this.log.append(queryId, terminal);
  }

  private toolsFor(principal: Principal, requested: string[] | undefined): ToolDefinition[] {
    if (requested) {
      const known = new Set(this.tools.map((t) => t.name));
      const unknown = requested.filter((name) => !known.has(name));
      if (unknown.length > 0) {
        throw ApiError.validation(
          unknown.map((name) => ({ field: 'tools', message: `unknown tool ${name}` })),
        );
      }
    }
    return allowedTools(this.tools, principal.scopes, requested);
  }

  private memoryDriver(): MemoryDriver {
    return {
      save: async (userId, { content, discussionId }) => {
        const memory = await this.storage.memories.create(userId, {
          content,
          source: 'assistant',
          discussionId,
        });
        return { id: memory.id, content: memory.content };
      },
      recall: async (userId, text, limit) =>
        (await this.storage.memories.recall(userId, text, limit)).map((m) => ({
          id: m.id,
          content: m.content,
          created_at: m.createdAt.toISOString(),
        })),
    };
  }
}

function failed(queryId: string, code: 'internal', detail: string): QueryEventBody {
  return { type: 'query.failed', error: problemOf(code, detail, queryId) };
}
