import { z } from 'zod';
import { FAMILY_NAME_PATTERN } from './family-name';
import { scopeSchema } from './scopes';

/**
 * A tool family (SPEC §3; a connection belongs to one). The families are the server's own — `GET /tools` lists
 * them — not a closed list of the contract: the product's are `memory`, `email`, `calendar`, `files`, `web` and
 * `home`, and `custom` for a self-hosted server's own tools (SPEC §6).
 */
export const toolFamilySchema = z
  .string()
  .regex(FAMILY_NAME_PATTERN)
  .meta({ examples: ['memory', 'email', 'calendar', 'files', 'web', 'home', 'custom'] });

/** A tool's family in the catalogue (the same grammar as a connection's). */
export const catalogueFamilySchema = toolFamilySchema;

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
