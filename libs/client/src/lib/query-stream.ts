import { setTimeout as pause } from 'node:timers/promises';
import type { CreateQuery, QueryEvent } from '@assistant/contracts';
import { isTerminalEvent, QUERY_EVENT_TYPES, ROUTE_WIRE } from '@assistant/contracts/wire';
import { ApiRequestError, ConnectionError, ProtocolError, StreamInterruptedError } from './errors';
import { readEvents } from './event-stream';
import type { HttpResponse } from './http-exchange';
import { operationPath } from './operations';
import { contractSchemas } from './schemas';
import type { Transport } from './transport';

/** How a broken query stream is resumed (`GET /queries/{id}/events` with `Last-Event-ID`). */
export interface ReconnectOptions {
  /** Attempts in a row that may fail before the stream gives up; an attempt that brings news resets the count. Default 5. */
  maxAttempts: number;
  /** The first wait, doubled after each failed attempt. Default 250 ms. */
  initialDelayMs: number;
  /** The longest wait. Default 5 s. */
  maxDelayMs: number;
  /** A connection silent for this long (the server pings every 15 s) counts as broken. Default 45 s; 0 turns it off. */
  idleTimeoutMs: number;
}

export const DEFAULT_RECONNECT: ReconnectOptions = {
  maxAttempts: 5,
  initialDelayMs: 250,
  maxDelayMs: 5_000,
  idleTimeoutMs: 45_000,
};

export interface StreamOptions {
  /** Aborting stops the stream (the iteration rejects with the signal's reason); the run goes on on the server. */
  signal?: AbortSignal | undefined;
}

export interface AttachOptions extends StreamOptions {
  /** Only the events after this sequence number (as `Last-Event-ID`). Default: all of them. */
  after?: number | undefined;
}

export type StreamStart =
  { kind: 'create'; body: CreateQuery } | { kind: 'attach'; queryId: string; after: number };

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(QUERY_EVENT_TYPES);

/**
 * The events of one query, in order and each once, through as many connections as it takes.
 *
 * The first connection is the `POST /queries` (or, for `attach`, the first `GET …/events`); its failure
 * is thrown as it is (ApiRequestError, ConnectionError). Once a stream has started, a drop — a network
 * error, the body ending before a terminal event, a silent connection, a gap in the sequence numbers — is
 * followed by `GET /queries/{id}/events` with `Last-Event-ID: <last sequence number>` after a short
 * backoff, and events already seen are skipped. The generator returns right after the terminal event.
 * Events of a type newer than this client are skipped; a malformed event of a known type is a ProtocolError
 * (checked against the contract's schema unless the client was made with validateResponses: false).
 */
export async function* queryEvents(
  transport: Transport,
  start: StreamStart,
  reconnect: ReconnectOptions,
  signal: AbortSignal | undefined,
): AsyncGenerator<QueryEvent, void, undefined> {
  let queryId = start.kind === 'attach' ? start.queryId : undefined;
  let last = start.kind === 'attach' ? start.after : 0;
  let established = false;
  let failures = 0;
  let serverRetryMs: number | undefined;

  for (;;) {
    signal?.throwIfAborted();
    const connection = new AbortController();
    const onAbort = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let progressed = false;
    let failure: unknown;
    let url = '';
    try {
      let response: HttpResponse | undefined;
      const headers: Record<string, string> = {};
      try {
        if (start.kind === 'create' && !established) {
          const path = operationPath('createQuery');
          url = transport.url(path);
          response = await transport.open(ROUTE_WIRE.createQuery.method, path, {
            body: start.body,
            accept: 'text/event-stream',
            signal: connection.signal,
          });
        } else {
          const path = operationPath('queryEvents', { id: queryId });
          url = transport.url(path);
          if (last > 0) headers['last-event-id'] = String(last);
          response = await transport.open(ROUTE_WIRE.queryEvents.method, path, {
            headers,
            accept: 'text/event-stream',
            signal: connection.signal,
          });
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (!established || !isRetryable(error)) throw error;
        failure = error;
      }

      if (response !== undefined) {
        const contentType = response.headers.get('content-type') ?? '';
        if (!contentType.toLowerCase().startsWith('text/event-stream') || !response.body) {
          response.discard();
          throw new ProtocolError(url, `expected text/event-stream, got ${contentType || 'no content type'}`);
        }
        established = true;
        try {
          for await (const message of readEvents(response.body, {
            abort: (reason) => connection.abort(reason),
            idleTimeoutMs: reconnect.idleTimeoutMs,
            onRetry: (milliseconds) => {
              serverRetryMs = milliseconds;
            },
          })) {
            if (!message.data) continue;
            const event = decodeEvent(url, message.data, transport.validateResponses);
            if (event === null) continue;
            const sequence = event.sequence_number;
            if (sequence <= last) continue; // replayed after a resume: already yielded
            if (sequence !== last + 1) {
              // Events were lost in between: ask again from the last one we have.
              failure = new ProtocolError(url, `event ${sequence} came after event ${last}`);
              break;
            }
            last = sequence;
            progressed = true;
            if (event.type === null) continue; // a type newer than this client
            if (event.value.type === 'query.created') queryId ??= event.value.query_id;
            if (isTerminalEvent(event.value)) {
              connection.abort();
              yield event.value;
              return;
            }
            yield event.value;
          }
          failure ??= new Error('the server closed the stream before the query ended');
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (error instanceof ProtocolError) throw error;
          failure = error;
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      connection.abort();
    }

    // The stream broke before its terminal event: resume it, if we know which query it was.
    if (progressed) failures = 0;
    failures += 1;
    if (queryId === undefined || failures > reconnect.maxAttempts) {
      throw new StreamInterruptedError({
        queryId,
        lastEventId: last,
        attempts: queryId === undefined ? 0 : failures - 1,
        cause: failure,
      });
    }
    const backoff = Math.min(reconnect.initialDelayMs * 2 ** (failures - 1), reconnect.maxDelayMs);
    const retryAfterMs =
      failure instanceof ApiRequestError && failure.retryAfter !== undefined ? failure.retryAfter * 1000 : 0;
    await sleep(Math.min(Math.max(backoff, serverRetryMs ?? 0, retryAfterMs), reconnect.maxDelayMs), signal);
  }
}

type Decoded =
  { type: string; value: QueryEvent; sequence_number: number } | { type: null; sequence_number: number };

function decodeEvent(url: string, data: string, validate: boolean): Decoded | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw new ProtocolError(url, `an event's data is not JSON: ${data.slice(0, 80)}`);
  }
  if (typeof value !== 'object' || value === null) {
    throw new ProtocolError(url, `an event's data is not a JSON object: ${data.slice(0, 80)}`);
  }
  const fields = value as { type?: unknown; sequence_number?: unknown };
  if (!Number.isSafeInteger(fields.sequence_number) || (fields.sequence_number as number) < 1) {
    throw new ProtocolError(url, `an event has no valid sequence_number: ${data.slice(0, 80)}`);
  }
  const sequence = fields.sequence_number as number;
  if (typeof fields.type === 'string' && !KNOWN_EVENT_TYPES.has(fields.type)) {
    return { type: null, sequence_number: sequence };
  }
  if (!validate) {
    if (typeof fields.type !== 'string') {
      throw new ProtocolError(url, `event ${sequence} has no type: ${data.slice(0, 80)}`);
    }
    return { type: fields.type, value: value as QueryEvent, sequence_number: sequence };
  }
  const parsed = contractSchemas().queryEventSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ProtocolError(
      url,
      `event ${sequence} (${String(fields.type)}) is off the contract: ${issue?.path.join('.') || 'data'}: ${issue?.message}`,
    );
  }
  // The server's own object, so that fields newer than this client are kept.
  return { type: parsed.data.type, value: value as QueryEvent, sequence_number: sequence };
}

/** Worth another try: the network, a server restarting (5xx) or busy (429, 408). Not 4xx: those will not change. */
function isRetryable(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  if (error instanceof ApiRequestError)
    return error.status >= 500 || error.status === 429 || error.status === 408;
  return false;
}

/** An abortable pause that rejects with the signal's own reason, as the rest of the stream does. */
async function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await pause(milliseconds, undefined, { signal });
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}
