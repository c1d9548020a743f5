import { z } from 'zod';
import { LIMITS } from './limits';
import { lineSchema, textSchema } from './common';

export const createQuerySchema = z
  .strictObject({
    text: textSchema('text')
      .trim()
      .min(1, { error: 'text must not be empty' })
      .max(LIMITS.maxQueryTextChars, {
        error: `text must be at most ${LIMITS.maxQueryTextChars} characters`,
      }),
    discussion_id: lineSchema('discussion_id').optional(),
    tools: z.array(lineSchema('a tool name')).optional(),
    model: lineSchema('model').optional(),
  })
  .meta({ id: 'CreateQuery' });
export type CreateQuery = z.infer<typeof createQuerySchema>;

export const queryStatusSchema = z.enum([
  'running',
  'awaiting_confirmation',
  'completed',
  'failed',
  'incomplete',
]);
export type QueryStatus = z.infer<typeof queryStatusSchema>;

/** `GET /queries/{id}`: where a query stands. */
export const querySchema = z
  .object({
    id: z.string(),
    status: queryStatusSchema,
    discussion_id: z.string(),
    message_id: z.string(),
    model: z.string(),
    created_at: z.string(),
    ended_at: z.string().nullable(),
    last_event_id: z.number().int(),
  })
  .meta({ id: 'Query' });
export type Query = z.infer<typeof querySchema>;

/** `GET /queries/{id}/events?after=`: the last event id the client has (as `Last-Event-ID`). */
export const queryEventsQuerySchema = z.strictObject({
  after: z.coerce
    .number({ error: 'after must be a whole number' })
    .int({ error: 'after must be a whole number' })
    .min(0, { error: 'after must be 0 or more' })
    .optional(),
});

/** The user's answer to a side-effecting call that waits for it (`tool_call.awaiting_confirmation`). */
export const confirmationSchema = z
  .strictObject({
    approve: z.boolean({ error: 'approve must be true or false' }).describe('true: do it; false: refuse it'),
  })
  .meta({ id: 'Confirmation' });
export type Confirmation = z.infer<typeof confirmationSchema>;
