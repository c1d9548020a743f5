import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { isTerminalEvent, type CreateQuery, type Query, type QueryEventBody } from '@assistant/contracts';
import { ModelCatalog, ModelUnavailableError, runQuery, toolCallsOf } from '@assistant/agent-core';
import { allowedTools, memoryTools, type MemoryDriver, type ToolDefinition } from '@assistant/tool-adapters';
import type { Principal } from '@assistant/auth';
import { newId, type Storage } from '@assistant/storage';
import { SERVER_CONFIG, STORAGE } from '../core.module';
import type { ServerConfig } from '../config/server-config';
import { ApiError, toProblem } from '../http/api-error';
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
export class QueriesService implements OnApplicationShutdown {
  private readonly logger = new Logger('QueriesService');
  /** Runs in progress on this process, by query id, so they can be cancelled and counted per user. */
  private readonly running = new Map<
    string,
    { userId: string; controller: AbortController; done: Promise<void> }
  >();
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
    let model;
    try {
      model = await this.models.pick(body.model);
    } catch (error) {
      if (error instanceof ModelUnavailableError) throw new ApiError('model_unavailable', error.message);
      throw error;
    }
    const tools = this.toolsFor(principal, body.tools);
    const runningForUser = [...this.running.values()].filter((run) => run.userId === userId).length;
    if (runningForUser >= this.config.queries.maxConcurrentPerUser) {
      throw new ApiError(
        'rate_limited',
        `${runningForUser} queries are already running for this account; wait for one to finish`,
        undefined,
        { 'retry-after': '5' },
      );
    }

    const discussion = body.discussion_id
      ? await this.storage.discussions.get(userId, body.discussion_id)
      : await this.storage.discussions.create(userId, titleFrom(body.text));
    if (!discussion) throw ApiError.notFound('discussion');
    const history = await this.storage.discussions.recentMessages(userId, discussion.id, HISTORY_MESSAGES);
    const recalled = await this.storage.memories.recall(userId, body.text, RECALLED_MEMORIES);

    const queryId = newId('query');
    await this.storage.discussions.appendMessage(userId, discussion.id, {
      role: 'user',
      text: body.text,
      queryId,
    });
    // Allocated after the question is stored: message ids sort in conversation order.
    const messageId = newId('message');
    this.log.open({
      id: queryId,
      userId,
      discussionId: discussion.id,
      messageId,
      model: model.name,
      createdAt: new Date(),
    });

    const controller = new AbortController();
    const done = runQuery(
      {
        queryId,
        discussionId: discussion.id,
        messageId,
        userId,
        modelName: model.name,
        model: model.model,
        text: body.text,
        history: history.map((m) => ({ role: m.role, text: m.text })),
        recalled: recalled.map((m) => ({ content: m.content, created_at: m.createdAt.toISOString() })),
        tools,
        signal: controller.signal,
        limits: this.config.queries.limits,
      },
      (event) =>
        isTerminalEvent(event) ? this.finish(queryId, event) : void this.log.append(queryId, event),
    )
      .catch((error: unknown) => {
        this.logger.error({ err: error, query_id: queryId }, 'run crashed');
        if (this.log.get(queryId)?.status === 'running') {
          void this.finish(queryId, failed(queryId, 'internal', 'the run failed on our side'));
        }
      })
      .finally(() => this.running.delete(queryId));
    this.running.set(queryId, { userId, controller, done });
    return this.log.get(queryId) as QueryRecord;
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

  async onApplicationShutdown(): Promise<void> {
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
        this.logger.error({ err: error, query_id: queryId }, 'could not store the answer');
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
  return { type: 'query.failed', error: toProblem(code, detail, queryId) };
}
