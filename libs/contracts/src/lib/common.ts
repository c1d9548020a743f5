import { z } from 'zod';
import { LIMITS } from './limits';

export const timestampSchema = z.string().describe('RFC 3339 timestamp, UTC');

/** Half of a UTF-16 surrogate pair on its own; with the `u` flag a proper pair is one code point and never matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Every free-text field a client sends (query text, memory content and tags, titles, token names, search
 * text). JSON can carry half a character (`"\ud800"`), which no database stores faithfully and no client can
 * show, so it is refused here, once for all of them. `label` names the field in the message.
 */
export function textSchema(label: string) {
  return z.string().refine((value) => !LONE_SURROGATE.test(value), {
    error: `${label} must be valid Unicode text: it contains half of a character (a lone surrogate)`,
  });
}

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
  q: textSchema('q').trim().min(1, { error: 'q must not be empty' }).max(LIMITS.maxSearchChars).optional(),
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
