import type { QueryEvent } from '@assistant/contracts';

/** An entry of a query's stream as XRANGE and XREAD return it: its id and its fields. */
export type StreamEntry = [id: string, fields: string[]];

/**
 * A query's events are a Redis stream whose entry ids are `0-<sequence number>`: "the events after N" is then
 * XRANGE from the exclusive id `(0-N`, or XREAD from `0-N`, with no lookup of ids.
 */
export const streamId = (sequenceNumber: number) => `0-${sequenceNumber}`;

/** The field that holds an event (as JSON) in its stream entry. */
export const EVENT_FIELD = 'e';

export function eventsOfEntries(entries: readonly StreamEntry[]): QueryEvent[] {
  return entries.map(([, fields]) => JSON.parse(fields[fields.indexOf(EVENT_FIELD) + 1]) as QueryEvent);
}
