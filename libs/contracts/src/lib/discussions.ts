import { z } from 'zod';
import { LIMITS } from './limits';
import { lineSchema, timestampSchema } from './common';

const titleSchema = lineSchema('title')
  .trim()
  .min(1, { error: 'title must not be empty' })
  .max(LIMITS.maxTitleChars, { error: `title must be at most ${LIMITS.maxTitleChars} characters` });

export const discussionSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
    message_count: z.number().int(),
  })
  .meta({ id: 'Discussion' });
export type Discussion = z.infer<typeof discussionSchema>;

export const createDiscussionSchema = z
  .strictObject({ title: titleSchema.optional() })
  .meta({ id: 'CreateDiscussion' });
export type CreateDiscussion = z.infer<typeof createDiscussionSchema>;

export const updateDiscussionSchema = z.strictObject({ title: titleSchema }).meta({ id: 'UpdateDiscussion' });
export type UpdateDiscussion = z.infer<typeof updateDiscussionSchema>;

export const messageRoleSchema = z.enum(['user', 'assistant']);
export type MessageRole = z.infer<typeof messageRoleSchema>;

export const toolCallRecordSchema = z.object({
  call_id: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  status: z.enum(['ok', 'error', 'denied']),
  output: z.unknown().optional(),
  error: z.string().optional(),
});
export type ToolCallRecord = z.infer<typeof toolCallRecordSchema>;

export const messageSchema = z
  .object({
    id: z.string(),
    role: messageRoleSchema,
    text: z.string(),
    tool_calls: z.array(toolCallRecordSchema),
    query_id: z.string().nullable(),
    created_at: timestampSchema,
  })
  .meta({ id: 'Message' });
export type Message = z.infer<typeof messageSchema>;
