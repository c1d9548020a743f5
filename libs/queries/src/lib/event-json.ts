import type { QueryEvent } from '@assistant/contracts';

/** The last event serialized, and its text. */
let lastEvent: QueryEvent | undefined;
let lastJson = '';

/**
 * An event's JSON text, made once for all who need it as it is appended — its SSE frames, Redis (hosted), the
 * database's write-behind — since each asks in turn for the event just appended. This one entry keeps the last
 * text, and nothing else alive.
 */
export function eventJson(event: QueryEvent): string {
  if (event !== lastEvent) {
    lastJson = JSON.stringify(event);
    lastEvent = event;
  }
  return lastJson;
}
