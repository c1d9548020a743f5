import { z } from 'zod';
import { LIMITS } from './limits';
import { lineSchema, textSchema, timestampSchema } from './common';

/** What a memory says; the same limit whether the user saves it or the assistant does (SPEC §7). */
export const memoryContentSchema = textSchema('content')
  .trim()
  .min(1, { error: 'content must not be empty' })
  .max(LIMITS.maxMemoryChars, { error: `content must be at most ${LIMITS.maxMemoryChars} characters` });

const tagsSchema = z
  .array(
    lineSchema('a tag')
      .trim()
      .min(1, { error: 'a tag must not be empty' })
      .max(LIMITS.maxTagChars, { error: `a tag must be at most ${LIMITS.maxTagChars} characters` }),
  )
  .max(LIMITS.maxTagsPerMemory, { error: `at most ${LIMITS.maxTagsPerMemory} tags` });

export const memorySourceSchema = z.enum(['user', 'assistant']);
export type MemorySource = z.infer<typeof memorySourceSchema>;

export const memorySchema = z
  .object({
    id: z.string(),
    content: z.string(),
    tags: z.array(z.string()),
    source: memorySourceSchema,
    discussion_id: z.string().nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Memory' });
export type Memory = z.infer<typeof memorySchema>;

export const createMemorySchema = z
  .strictObject({ content: memoryContentSchema, tags: tagsSchema.optional() })
  .meta({ id: 'CreateMemory' });
export type CreateMemory = z.infer<typeof createMemorySchema>;

export const updateMemorySchema = z
  .strictObject({ content: memoryContentSchema.optional(), tags: tagsSchema.optional() })
  .refine((v) => v.content !== undefined || v.tags !== undefined, {
    error: 'give content, tags or both',
    path: [],
  })
  .meta({ id: 'UpdateMemory' });
export type UpdateMemory = z.infer<typeof updateMemorySchema>;
