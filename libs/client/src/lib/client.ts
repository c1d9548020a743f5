import {
  accountSchema,
  createdTokenSchema,
  discussionListSchema,
  discussionSchema,
  memoryListSchema,
  memorySchema,
  messageListSchema,
  querySchema,
  tokenListSchema,
  type Account,
  type CreateDiscussion,
  type CreateMemory,
  type CreateQuery,
  type CreateToken,
  type CreatedToken,
  type Discussion,
  type ListEnvelope,
  type Memory,
  type Message,
  type PersonalToken,
  type QueryEvent,
  type Query,
  type UpdateMemory,
} from '@assistant/contracts';
import { paginate } from './paginate';
import {
  DEFAULT_RECONNECT,
  queryEvents,
  type AttachOptions,
  type ReconnectOptions,
  type StreamOptions,
} from './query-stream';
import { Transport, type TransportOptions } from './transport';

/** The transport's options (server, token, fetch, headers, validation) and how a broken query stream resumes. */
export interface AssistantClientOptions extends TransportOptions {
  reconnect?: Partial<ReconnectOptions> | undefined;
}

export interface RequestOptions {
  signal?: AbortSignal | undefined;
}

export interface PageParams {
  /** 1–100, default 20. */
  limit?: number | undefined;
  /** The `next_cursor` of the previous page. */
  cursor?: string | undefined;
}

export interface SearchParams extends PageParams {
  /** Full-text search. */
  q?: string | undefined;
}

/** `GET /queries/{id}` and the reply of a cancel: where a query stands. */
export type QueryInfo = Query;

const id = (value: string): string => {
  if (typeof value !== 'string' || value === '') throw new TypeError('an id must be a non-empty string');
  return encodeURIComponent(value);
};

/**
 * A typed client of the Assistant API (/api/v1), for Node.js 20+.
 *
 * Every method throws ApiRequestError for a non-2xx reply (with the server's problem: `code`, `detail`),
 * ConnectionError when the server cannot be reached, and ProtocolError for a reply off the contract.
 */
export class AssistantClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly reconnect: ReconnectOptions;

  constructor(options: AssistantClientOptions) {
    this.transport = new Transport(options);
    this.baseUrl = this.transport.baseUrl;
    this.reconnect = { ...DEFAULT_RECONNECT, ...definedOnly(options.reconnect ?? {}) };
  }

  /** `GET /me`: the account and the calling token. */
  me(options: RequestOptions = {}): Promise<Account> {
    return this.transport.json('GET', '/me', accountSchema, options);
  }

  readonly discussions = {
    /** One page, newest first. */
    list: (params: SearchParams = {}, options: RequestOptions = {}): Promise<ListEnvelope<Discussion>> =>
      this.transport.json('GET', '/discussions', discussionListSchema, {
        ...options,
        query: { q: params.q, limit: params.limit, cursor: params.cursor },
      }),
    /** Every discussion (matching `q`), page after page. */
    iterate: (
      params: Omit<SearchParams, 'cursor'> = {},
      options: RequestOptions = {},
    ): AsyncIterable<Discussion> =>
      paginate((cursor) => this.discussions.list({ ...params, cursor }, options)),
    create: (body: CreateDiscussion = {}, options: RequestOptions = {}): Promise<Discussion> =>
      this.transport.json('POST', '/discussions', discussionSchema, { ...options, body }),
    get: (discussionId: string, options: RequestOptions = {}): Promise<Discussion> =>
      this.transport.json('GET', `/discussions/${id(discussionId)}`, discussionSchema, options),
    rename: (discussionId: string, title: string, options: RequestOptions = {}): Promise<Discussion> =>
      this.transport.json('PATCH', `/discussions/${id(discussionId)}`, discussionSchema, {
        ...options,
        body: { title },
      }),
    /** Deletes the discussion with its messages. */
    delete: (discussionId: string, options: RequestOptions = {}): Promise<void> =>
      this.transport.json('DELETE', `/discussions/${id(discussionId)}`, null, options),
    /** One page of its messages, oldest first. */
    messages: (
      discussionId: string,
      page: PageParams = {},
      options: RequestOptions = {},
    ): Promise<ListEnvelope<Message>> =>
      this.transport.json('GET', `/discussions/${id(discussionId)}/messages`, messageListSchema, {
        ...options,
        query: { limit: page.limit, cursor: page.cursor },
      }),
    /** Every message of the discussion, oldest first. */
    iterateMessages: (
      discussionId: string,
      params: Omit<PageParams, 'cursor'> = {},
      options: RequestOptions = {},
    ): AsyncIterable<Message> =>
      paginate((cursor) => this.discussions.messages(discussionId, { ...params, cursor }, options)),
  };

  readonly memories = {
    /** One page, newest first; `q` is a full-text search. */
    list: (params: SearchParams = {}, options: RequestOptions = {}): Promise<ListEnvelope<Memory>> =>
      this.transport.json('GET', '/memories', memoryListSchema, {
        ...options,
        query: { q: params.q, limit: params.limit, cursor: params.cursor },
      }),
    iterate: (
      params: Omit<SearchParams, 'cursor'> = {},
      options: RequestOptions = {},
    ): AsyncIterable<Memory> => paginate((cursor) => this.memories.list({ ...params, cursor }, options)),
    create: (body: CreateMemory, options: RequestOptions = {}): Promise<Memory> =>
      this.transport.json('POST', '/memories', memorySchema, { ...options, body }),
    get: (memoryId: string, options: RequestOptions = {}): Promise<Memory> =>
      this.transport.json('GET', `/memories/${id(memoryId)}`, memorySchema, options),
    update: (memoryId: string, body: UpdateMemory, options: RequestOptions = {}): Promise<Memory> =>
      this.transport.json('PATCH', `/memories/${id(memoryId)}`, memorySchema, { ...options, body }),
    delete: (memoryId: string, options: RequestOptions = {}): Promise<void> =>
      this.transport.json('DELETE', `/memories/${id(memoryId)}`, null, options),
  };

  readonly tokens = {
    /** Personal tokens (never their secrets). */
    list: (page: PageParams = {}, options: RequestOptions = {}): Promise<ListEnvelope<PersonalToken>> =>
      this.transport.json('GET', '/tokens', tokenListSchema, {
        ...options,
        query: { limit: page.limit, cursor: page.cursor },
      }),
    iterate: (
      params: Omit<PageParams, 'cursor'> = {},
      options: RequestOptions = {},
    ): AsyncIterable<PersonalToken> => paginate((cursor) => this.tokens.list({ ...params, cursor }, options)),
    /** The reply holds the secret (`token`): the only time it is shown. */
    create: (body: CreateToken, options: RequestOptions = {}): Promise<CreatedToken> =>
      this.transport.json('POST', '/tokens', createdTokenSchema, { ...options, body }),
    /** The token's next use gets 401. */
    revoke: (tokenId: string, options: RequestOptions = {}): Promise<void> =>
      this.transport.json('DELETE', `/tokens/${id(tokenId)}`, null, options),
  };

  readonly queries = {
    /**
     * `POST /queries`: runs a query and yields its events as they come, ending with the terminal one
     * (`query.completed`, `query.failed` or `query.incomplete`). A dropped connection is resumed with
     * `Last-Event-ID`; no event is yielded twice or out of order. The POST itself is never repeated.
     */
    stream: (body: CreateQuery, options: StreamOptions = {}): AsyncIterable<QueryEvent> =>
      queryEvents(this.transport, { kind: 'create', body }, this.reconnect, options.signal),
    /** `GET /queries/{id}/events`: attaches to a query (running or recently ended) and yields its events after `after`. */
    events: (queryId: string, options: AttachOptions = {}): AsyncIterable<QueryEvent> => {
      id(queryId);
      const after = options.after ?? 0;
      if (!Number.isSafeInteger(after) || after < 0) throw new TypeError('after must be a whole number ≥ 0');
      return queryEvents(this.transport, { kind: 'attach', queryId, after }, this.reconnect, options.signal);
    },
    /** `GET /queries/{id}`: its status. */
    get: (queryId: string, options: RequestOptions = {}): Promise<QueryInfo> =>
      this.transport.json('GET', `/queries/${id(queryId)}`, querySchema, options),
    /** `POST /queries/{id}/cancel`: stops the run; its stream ends with `query.incomplete` (reason `cancelled`). */
    cancel: (queryId: string, options: RequestOptions = {}): Promise<QueryInfo> =>
      this.transport.json('POST', `/queries/${id(queryId)}/cancel`, querySchema, options),
    /** `POST /queries/{id}/confirmations/{call_id}`: approves or denies a tool call awaiting confirmation. */
    confirm: (
      queryId: string,
      callId: string,
      approve: boolean,
      options: RequestOptions = {},
    ): Promise<void> =>
      this.transport.json('POST', `/queries/${id(queryId)}/confirmations/${id(callId)}`, null, {
        ...options,
        body: { approve },
      }),
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
