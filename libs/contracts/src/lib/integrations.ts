import { z } from 'zod';
import { scopeSchema } from './scopes';
import { timestampSchema } from './common';

/** A third-party application the account let in through OAuth (SPEC §2), with what it may do. */
export const integrationSchema = z
  .object({
    client_id: z.string(),
    name: z.string().describe('the name the application registered under'),
    scopes: z.array(scopeSchema).describe('what the account allowed it'),
    created_at: timestampSchema.describe('when the account first allowed it'),
    last_used_at: timestampSchema.nullable().describe('when one of its tokens was last used (to the minute)'),
    recent_activity: z
      .array(
        z.object({
          at: timestampSchema,
          what: z.string().describe('the endpoint it called, e.g. `GET /api/v1/memories`'),
          scope: scopeSchema.nullable().describe('the scope that call needed'),
        }),
      )
      .describe('its latest calls, newest first (each endpoint at most once a minute; kept 30 days)'),
  })
  .meta({ id: 'Integration' });
export type Integration = z.infer<typeof integrationSchema>;

export const integrationListSchema = z
  .object({ data: z.array(integrationSchema) })
  .meta({ id: 'IntegrationList' });
