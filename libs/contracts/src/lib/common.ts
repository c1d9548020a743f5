import { z } from 'zod';
import { LIMITS } from './limits';

export const timestampSchema = z.string().describe('RFC 3339 timestamp, UTC');

/** `?limit=&cursor=` of every list (SPEC §1); strings because they come from the query string. */
export const pageQuerySchema = z.strictObject({
  limit: z.coerce
    .number({ error: 'limit must be a whole number between 1 and 100' })
    .int({ error: 'limit must be a whole number between 1 and 100' })
    .min(1, { error: 'limit must be at least 1' })
    .max(LIMITS.listMaxLimit, { error: `limit must be at most ${LIMITS.listMaxLimit}` })
    .default(LIMITS.listDefaultLimit),
  cursor: z.string().min(1).max(512).optional(),
});

export const searchablePageQuerySchema = pageQuerySchema.extend({
  q: z.string().trim().min(1, { error: 'q must not be empty' }).max(LIMITS.maxSearchChars).optional(),
});

export type PageQuery = z.infer<typeof pageQuerySchema>;
export type SearchablePageQuery = z.infer<typeof searchablePageQuerySchema>;

export function listEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as ?cursor= to get the next page; null on the last page'),
  });
}

export interface ListEnvelope<T> {
  data: T[];
  next_cursor: string | null;
}
