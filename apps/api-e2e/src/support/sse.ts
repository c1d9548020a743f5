import { createParser } from 'eventsource-parser';
import { queryEventSchema, type QueryEvent } from '@assistant/contracts';

export interface ReceivedEvent {
  event: QueryEvent;
  /** Which network read delivered it: events that arrive apart have different chunk numbers. */
  chunk: number;
  /** The SSE `id:` field. */
  id: string | undefined;
}

export interface StreamOptions {
  token: string;
  body?: unknown;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Stop reading (and close the connection) once this many events have arrived. */
  stopAfter?: number;
}

export interface StreamResult {
  status: number;
  headers: Headers;
  events: ReceivedEvent[];
  /** The problem body when the server refused before streaming. */
  problem?: { code: string; detail: string; status: number };
  comments: string[];
}

/** Reads a query's event stream as a client would, with eventsource-parser, chunk by chunk. */
export async function readStream(url: string, options: StreamOptions): Promise<StreamResult> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: options.method ?? (options.body ? 'POST' : 'GET'),
    headers: {
      authorization: `Bearer ${options.token}`,
      accept: 'text/event-stream',
      ...(options.body ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.body ? JSON.stringify(options.body) : undefined,
    signal: controller.signal,
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return {
      status: response.status,
      headers: response.headers,
      events: [],
      problem: (await response.json()) as StreamResult['problem'],
      comments: [],
    };
  }
  const events: ReceivedEvent[] = [];
  const comments: string[] = [];
  let chunk = 0;
  const parser = createParser({
    onEvent: (message) => {
      const event = queryEventSchema.parse(JSON.parse(message.data));
      if (message.event !== event.type)
        throw new Error(`event: ${message.event} but data.type ${event.type}`);
      events.push({ event, chunk, id: message.id });
    },
    onComment: (comment) => comments.push(comment),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunk++;
      parser.feed(decoder.decode(value, { stream: true }));
      if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
        controller.abort();
        break;
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return { status: response.status, headers: response.headers, events, comments };
}

export const types = (result: StreamResult) => result.events.map((e) => e.event.type);
export const sequence = (result: StreamResult) => result.events.map((e) => e.event.sequence_number);
