import type { QueryEvent } from './events';

/** The events that end a query stream: the last one of every stream is one of these. */
export const TERMINAL_EVENT_TYPES = ['query.completed', 'query.failed', 'query.incomplete'] as const;

export function isTerminalEvent(event: Pick<QueryEvent, 'type'>): boolean {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type);
}
