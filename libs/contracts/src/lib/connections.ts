import { z } from 'zod';
import { lineSchema, timestampSchema } from './common';
import { toolFamilySchema } from './tools';

const settingsSchema = z
  .record(z.string(), z.unknown())
  .describe('the provider\'s settings (SPEC §3 "Connections"), checked against the provider\'s own schema');

/** An account behind some tools: a mail server, a calendar, a folder… Never its secrets (SPEC §3). */
export const connectionSchema = z
  .object({
    id: z.string(),
    family: toolFamilySchema,
    provider: z.string(),
    name: z
      .string()
      .describe(
        "unique among the account's connections of its family, whatever its case: a tool's `connection` argument names it",
      ),
    settings: settingsSchema,
    status: z
      .enum(['ok', 'error', 'needs_reauth'])
      .describe(
        'how the last try of the connection went; `needs_reauth`: the Google or Microsoft account no longer accepts it (connect it again on /profile)',
      ),
    last_error: z.string().nullable().describe("the remote server's reason when status is error"),
    default: z
      .boolean()
      .describe(
        "the family's default: a tool call that names no connection goes through it (through the next one that provides the tool when it does not); one per family",
      ),
    built_in: z
      .boolean()
      .describe(
        "built into this server (the web fetcher; on a self-hosted server the account's own folder): used when no connection of the account's own serves a tool; it cannot be changed or removed",
      ),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Connection' });
export type Connection = z.infer<typeof connectionSchema>;

const nameSchema = lineSchema('name')
  .trim()
  .min(1, { error: 'name must not be empty' })
  .max(100, { error: 'name must be at most 100 characters' });

const secretsSchema = z
  .record(z.string(), z.unknown())
  .describe('write-only: stored encrypted, never returned');

export const createConnectionSchema = z
  .object({
    family: toolFamilySchema,
    provider: z.string().min(1).max(32),
    name: nameSchema.optional().describe("unique in the family; the provider's name when absent"),
    settings: settingsSchema.default({}),
    secrets: secretsSchema.default({}),
    default: z
      .boolean()
      .optional()
      .describe("make it the family's default (the first connection of a family always is)"),
  })
  .strict()
  .meta({ id: 'CreateConnection' });
export type CreateConnection = z.infer<typeof createConnectionSchema>;

export const updateConnectionSchema = z
  .object({
    name: nameSchema.optional(),
    settings: settingsSchema.optional(),
    secrets: secretsSchema.optional().describe('replaces the stored secrets when given'),
    default: z
      .literal(true)
      .optional()
      .describe(
        "make it the family's default (another becomes the default by being made so, not by unsetting this one)",
      ),
  })
  .strict()
  .meta({ id: 'UpdateConnection' });
export type UpdateConnection = z.infer<typeof updateConnectionSchema>;

export const connectionListSchema = z
  .object({ data: z.array(connectionSchema) })
  .meta({ id: 'ConnectionList' });
