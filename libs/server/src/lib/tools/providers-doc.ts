import { connectionFields, type ConnectionField, type ToolFamily } from '@assistant/tool-kit';

/**
 * The documentation's table of providers and their fields (docs/connections.md), written from the same schemas
 * that check the API's bodies and draw the forms of /profile: one schema, three uses. providers-doc.spec.ts fails
 * when the document differs from what this gives (`UPDATE_DOCS=1` rewrites it).
 */

/** Where the generated table sits in the document. */
export const PROVIDERS_TABLE_START =
  '<!-- providers table: generated from the providers’ schemas, do not edit -->';
export const PROVIDERS_TABLE_END = '<!-- end of providers table -->';

/** Text for a Markdown table cell: no line break, no unescaped pipe. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function defaultOf(field: ConnectionField): string {
  if (field.default === undefined) return '';
  if (Array.isArray(field.default))
    return field.default.length === 0 ? 'none' : `\`${field.default.join(', ')}\``;
  return `\`${String(field.default)}\``;
}

function whatItIs(field: ConnectionField): string {
  const kind: Record<ConnectionField['kind'], string> = {
    text: 'text',
    url: 'a URL',
    email: 'an email address',
    number: 'a number',
    checkbox: 'true or false',
    list: 'a list',
    password: 'a secret: write-only, stored encrypted',
  };
  return [kind[field.kind], field.help].filter(Boolean).join('; ');
}

/** The table of every provider of `families` (on any deployment) with each of its settings and secrets. */
export function providersTable(families: readonly ToolFamily[]): string {
  const rows = families.flatMap((family) =>
    family.providers.flatMap((provider) => {
      const where = provider.deployments ? ` (${provider.deployments.join(', ')} only)` : '';
      const fields = connectionFields(provider);
      const head = `\`${family.name}\` / \`${provider.name}\`${where}`;
      if (fields.length === 0) return [`| ${head} | | ${cell(provider.description)}: nothing to set | | |`];
      return fields.map(
        (field) =>
          `| ${head} | \`${field.secret ? 'secrets' : 'settings'}.${field.name}\` | ${cell(whatItIs(field))} | ${
            field.required ? 'yes' : ''
          } | ${cell(defaultOf(field))} |`,
      );
    }),
  );
  return [
    '| family / provider | field | what it is | required | default |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** `document` with its generated table replaced by `table`; the markers must be there. */
export function withProvidersTable(document: string, table: string): string {
  const start = document.indexOf(PROVIDERS_TABLE_START);
  const end = document.indexOf(PROVIDERS_TABLE_END);
  if (start < 0 || end < start) throw new Error('the document has no providers table markers');
  return `${document.slice(0, start + PROVIDERS_TABLE_START.length)}\n\n${table}\n\n${document.slice(end)}`;
}
