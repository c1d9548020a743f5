import type { CreateQuery, ListEnvelope, QueryEvent } from '@assistant/contracts';
import { ROUTE_WIRE } from '@assistant/contracts/wire';
import { paginate } from './paginate';
import {
  operationPath,
  type InputArgs,
  type JsonOperationId,
  type OperationInput,
  type OperationOutput,
} from './operations';
import {
  DEFAULT_RECONNECT,
  queryEvents,
  type AttachOptions,
  type ReconnectOptions,
  type StreamOptions,
} from './query-stream';
import { contractSchemas } from './schemas';
import { Transport, type ResponseSchema, type TransportOptions } from './transport';

/** The transport's options (server, token, fetch, headers, validation) and how a broken query stream resumes. */
export interface AssistantClientOptions extends TransportOptions {
  reconnect?: Partial<ReconnectOptions> | undefined;
}

export interface RequestOptions {
  signal?: AbortSignal | undefined;
}

/**
 * One method per JSON operation of the contract (@assistant/contracts ROUTES), named by its operationId:
 * `getMe()`, `listMemories({ query: { q } })`, `createMemory({ body })`, `getMemory({ id })`, `revokeToken({ id })`…
 */
export type OperationMethods = {
  [K in JsonOperationId]: (
    ...args: [...InputArgs<K>, options?: RequestOptions]
  ) => Promise<OperationOutput<K>>;
};

/** The list operations (they answer `{data, next_cursor}`), for iterate(). */
export type ListOperationId = {
  [K in JsonOperationId]: OperationOutput<K> extends ListEnvelope<unknown> ? K : never;
}[JsonOperationId];

type ItemOf<K extends ListOperationId> = OperationOutput<K> extends ListEnvelope<infer T> ? T : never;

// The operation methods are added in the constructor from the contract's list; this merges their types in.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type, @typescript-eslint/no-empty-interface
export interface AssistantClient extends OperationMethods {}

/**
 * A typed client of the Assistant API (/api/v1), for Node.js 20+. Its methods are derived from the contract's
 * route declarations, and every JSON reply is checked against the declared schema (validateResponses).
 *
 * Every method throws ApiRequestError for a non-2xx reply (with the server's problem: `code`, `detail`),
 * ConnectionError when the server cannot be reached, and ProtocolError for a reply off the contract.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class AssistantClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly reconnect: ReconnectOptions;

  constructor(options: AssistantClientOptions) {
    this.transport = new Transport(options);
    this.baseUrl = this.transport.baseUrl;
    this.reconnect = { ...DEFAULT_RECONNECT, ...definedOnly(options.reconnect ?? {}) };
    for (const [operationId, route] of Object.entries(ROUTE_WIRE)) {
      if (route.contentType === 'text/event-stream') continue;
      Object.defineProperty(this, operationId, {
        value: (input?: object, options?: RequestOptions) =>
          this.call(operationId as JsonOperationId, input as never, options),
      });
    }
  }

  /** Calls an operation by its operationId; the named methods are this with the name filled in. */
  call<K extends JsonOperationId>(
    operationId: K,
    input?: OperationInput<K>,
    options: RequestOptions = {},
  ): Promise<OperationOutput<K>> {
    const route = ROUTE_WIRE[operationId];
    const { query, body } = (input ?? {}) as { query?: Record<string, never>; body?: unknown };
    return this.transport.json(
      route.method,
      operationPath(operationId, input),
      route.status === 204 ? null : responseSchema(operationId),
      { ...options, query, body: body ?? (route.body ? {} : undefined) },
    ) as Promise<OperationOutput<K>>;
  }

  /** Every item of a list operation, page after page (the query's `limit` sets the page size). */
  iterate<K extends ListOperationId>(
    operationId: K,
    input?: OperationInput<K>,
    options: RequestOptions = {},
  ): AsyncIterable<ItemOf<K>> {
    const { query, ...rest } = (input ?? {}) as { query?: Record<string, unknown> };
    return paginate(
      (cursor) =>
        this.call(
          operationId,
          { ...rest, query: { ...query, cursor } } as unknown as OperationInput<K>,
          options,
        ) as Promise<ListEnvelope<ItemOf<K>>>,
    );
  }

  /**
   * `POST /queries`: runs a query and yields its events as they come, ending with the terminal one
   * (`query.completed`, `query.failed` or `query.incomplete`). A dropped connection is resumed with
   * `Last-Event-ID`; no event is yielded twice or out of order. The POST itself is never repeated.
   */
  streamQuery(body: CreateQuery, options: StreamOptions = {}): AsyncIterable<QueryEvent> {
    return queryEvents(this.transport, { kind: 'create', body }, this.reconnect, options.signal);
  }

  /** `GET /queries/{id}/events`: attaches to a query (running or recently ended) and yields its events after `after`. */
  queryEvents(queryId: string, options: AttachOptions = {}): AsyncIterable<QueryEvent> {
    operationPath('queryEvents', { id: queryId });
    const after = options.after ?? 0;
    if (!Number.isSafeInteger(after) || after < 0) throw new TypeError('after must be a whole number ≥ 0');
    return queryEvents(this.transport, { kind: 'attach', queryId, after }, this.reconnect, options.signal);
  }
}

/** The declared schema of an operation's reply, loaded only once a reply is checked against it. */
function responseSchema(operationId: JsonOperationId): ResponseSchema<unknown> {
  return {
    safeParse: (data) => {
      const { response } = contractSchemas().ROUTES[operationId];
      // A free-form document (the OpenAPI one) declares no schema: anything goes.
      return 'schema' in response
        ? (response.schema as ResponseSchema<unknown>).safeParse(data)
        : { success: true, data };
    },
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
