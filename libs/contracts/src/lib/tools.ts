import { z } from 'zod';
import { scopeSchema } from './scopes';

/** The tool families of SPEC §3 (a connection belongs to one). */
export const toolFamilySchema = z.enum(['memory', 'email', 'calendar', 'files', 'web', 'home']);

/** A tool's family in the catalogue: one of SPEC §3's, or `custom` for a self-hosted server's own tools (SPEC §6). */
export const catalogueFamilySchema = z.enum([...toolFamilySchema.options, 'custom']);

/** One tool of the catalogue (SPEC §3 `GET /tools`); the same name in queries, here and in MCP. */
export const toolInfoSchema = z
  .object({
    name: z.string().describe('`<family>_<verb>`, e.g. `email_search`'),
    family: catalogueFamilySchema,
    description: z.string(),
    input_schema: z.record(z.string(), z.unknown()).describe('JSON Schema of the tool’s input'),
    scope: scopeSchema.describe('the scope a token needs for the assistant to use this tool for it'),
    side_effects: z
      .boolean()
      .describe('changes something outside the assistant; a query waits for confirmation before calling it'),
    active: z.boolean().describe('the account has what the tool needs (a connection, or none needed)'),
  })
  .meta({ id: 'Tool' });
export type ToolInfo = z.infer<typeof toolInfoSchema>;

export const toolListSchema = z.object({ data: z.array(toolInfoSchema) }).meta({ id: 'ToolList' });
