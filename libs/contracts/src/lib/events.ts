import { z } from 'zod';
import { problemSchema } from './problem';

/**
 * The events of a query stream (SPEC §4). On the wire each one is
 * `id: <sequence_number>`, `event: <type>`, `data: <the JSON object below>`.
 */
const base = { sequence_number: z.number().int().positive() };

export const queryCreatedEventSchema = z.object({
  ...base,
  type: z.literal('query.created'),
  query_id: z.string(),
  discussion_id: z.string(),
  message_id: z.string(),
  model: z.string(),
});
export const outputTextDeltaEventSchema = z.object({
  ...base,
  type: z.literal('output_text.delta'),
  delta: z.string(),
});
const toolCallFields = {
  call_id: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
};
export const toolCallStartedEventSchema = z.object({
  ...base,
  type: z.literal('tool_call.started'),
  ...toolCallFields,
});
export const toolCallAwaitingConfirmationEventSchema = z.object({
  ...base,
  type: z.literal('tool_call.awaiting_confirmation'),
  ...toolCallFields,
});
export const toolCallCompletedEventSchema = z.object({
  ...base,
  type: z.literal('tool_call.completed'),
  call_id: z.string(),
  tool: z.string(),
  status: z.enum(['ok', 'error', 'denied']),
  output: z.unknown().optional(),
  error: z.string().optional(),
});
export const memorySavedEventSchema = z.object({
  ...base,
  type: z.literal('memory.saved'),
  memory_id: z.string(),
  content: z.string(),
});
export const queryCompletedEventSchema = z.object({
  ...base,
  type: z.literal('query.completed'),
  message_id: z.string(),
  text: z.string(),
  usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
  finish_reason: z.string(),
});
export const queryFailedEventSchema = z.object({
  ...base,
  type: z.literal('query.failed'),
  error: problemSchema,
});
export const queryIncompleteEventSchema = z.object({
  ...base,
  type: z.literal('query.incomplete'),
  // `interrupted`: the server stopped or crashed during the run; written at its next start.
  reason: z.enum(['cancelled', 'max_steps', 'timeout', 'confirmation_timeout', 'interrupted']),
});

export const queryEventSchema = z
  .discriminatedUnion('type', [
    queryCreatedEventSchema,
    outputTextDeltaEventSchema,
    toolCallStartedEventSchema,
    toolCallAwaitingConfirmationEventSchema,
    toolCallCompletedEventSchema,
    memorySavedEventSchema,
    queryCompletedEventSchema,
    queryFailedEventSchema,
    queryIncompleteEventSchema,
  ])
  .meta({ id: 'QueryEvent' });

export type QueryEvent = z.infer<typeof queryEventSchema>;
export type QueryEventType = QueryEvent['type'];
export type QueryEventOf<T extends QueryEventType> = Extract<QueryEvent, { type: T }>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event as a run produces it; the query's event log numbers it. */
export type QueryEventBody = DistributiveOmit<QueryEvent, 'sequence_number'>;
