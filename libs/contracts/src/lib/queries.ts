import { z } from 'zod';
import { LIMITS } from './limits';

export const createQuerySchema = z
  .strictObject({
    text: z
      .string()
      .trim()
      .min(1, { error: 'text must not be empty' })
      .max(LIMITS.maxQueryTextChars, {
        error: `text must be at most ${LIMITS.maxQueryTextChars} characters`,
      }),
    discussion_id: z.string().optional(),
    tools: z.array(z.string()).optional(),
    model: z.string().optional(),
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
