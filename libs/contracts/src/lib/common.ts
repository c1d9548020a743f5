import { z } from 'zod';
import { LIMITS } from './limits';

export const timestampSchema = z.string().describe('RFC 3339 timestamp, UTC');

/** Half of a UTF-16 surrogate pair on its own; with the `u` flag a proper pair is one code point and never matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** U+0000: PostgreSQL's text cannot hold it (the statement fails), and no text of a person's has it. */
const NUL = '\u0000';

/** Unicode's control characters (C0, DEL and C1): line breaks, tabs, escapes, NUL. */
const CONTROL = /\p{Cc}/u;

/** Text in which every character is whole: a string with half of one is refused, naming the field. */
function unicodeSchema(label: string) {
  return z.string().refine((value) => !LONE_SURROGATE.test(value), {
    error: `${label} must be valid Unicode text: it contains half of a character (a lone surrogate)`,
  });
}

/**
 * Every free-text field a client sends that may run over lines (query text, memory content, search text). JSON
 * can carry half a character (`"\ud800"`) and U+0000, which no database stores faithfully and no client can
 * show, so both are refused here, once for all of them; line breaks and tabs are text. `label` names the field
 * in the message.
 */
export function textSchema(label: string) {
  return unicodeSchema(label).refine((value) => !value.includes(NUL), {
    error: `${label} must not contain the character U+0000 (NUL)`,
  });
}

/**
 * One line of text: a name, a title or a tag, and the ids and names a body refers to. Besides what textSchema
 * refuses, no control character makes sense in it (a line break, a tab, an escape that would rewrite a terminal
 * listing it), not even at either end: refused here, once for all of them.
 */
export function lineSchema(label: string) {
  return unicodeSchema(label).refine((value) => !CONTROL.test(value), {
    error: `${label} must not contain control characters (line breaks, tabs, U+0000 and the like)`,
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
