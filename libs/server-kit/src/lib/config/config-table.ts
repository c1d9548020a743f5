import type { z } from 'zod';
import { flagName, HOSTED_SETTINGS, SELF_HOST_SETTINGS, settingMeta, type SettingMeta } from './settings';

/**
 * The README's configuration table, generated from the settings schemas, so that it cannot drift from what the
 * servers read. `npm run docs:config` rewrites it; config-table.spec.ts fails when README.md differs.
 */

export const CONFIG_TABLE_START =
  '<!-- configuration table: generated from libs/server-kit/src/lib/config/settings.ts by `npm run docs:config` -->';
export const CONFIG_TABLE_END = '<!-- end of the configuration table -->';

type Shape = Record<string, z.ZodType>;

const SELF_HOST: Shape = SELF_HOST_SETTINGS.shape;
const HOSTED: Shape = HOSTED_SETTINGS.shape;

/**
 * One row per variable, the flags of `assistant serve` first. The default column gives the self-hosted server's
 * default and, where the hosted API's differs, "(hosted: …)"; "not used" marks a setting one of them ignores.
 */
export function configTable(): string {
  const names = [...new Set([...Object.keys(SELF_HOST), ...Object.keys(HOSTED)])];
  const hasFlag = (name: string) => (metaOf(name).flag ? 0 : 1);
  const rows = names
    .sort((a, b) => hasFlag(a) - hasFlag(b))
    .map((name) => {
      const meta = metaOf(name);
      const own = defaultOf(SELF_HOST, name);
      const hosted = defaultOf(HOSTED, name);
      return [
        `\`${name}\``,
        meta.flag ? `\`${flagName(meta.flag)}\`` : '',
        own === hosted ? own : `${own} (hosted: ${hosted})`,
        meta.description,
      ];
    });
  return markdownTable(['variable', 'flag', 'default', 'meaning'], rows);
}

/** `readme` with the text between the table's markers replaced by the generated table. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_TABLE_START);
  const end = readme.indexOf(CONFIG_TABLE_END);
  if (start === -1 || end < start) {
    throw new Error(
      `README.md has no configuration table markers (${CONFIG_TABLE_START} … ${CONFIG_TABLE_END})`,
    );
  }
  return `${readme.slice(0, start + CONFIG_TABLE_START.length)}\n\n${configTable()}\n\n${readme.slice(end)}`;
}

/** The meaning of a variable is the same in both schemas; a difference is a mistake in settings.ts. */
function metaOf(name: string): SettingMeta {
  const metas = [SELF_HOST[name], HOSTED[name]]
    .filter((field) => field !== undefined)
    .map((field) => settingMeta.get(field));
  const [meta] = metas;
  if (!meta) throw new Error(`${name} has no description in settings.ts`);
  if (metas.some((other) => other?.description !== meta.description)) {
    throw new Error(`${name} is described differently for the two deployments`);
  }
  return meta;
}

function defaultOf(shape: Shape, name: string): string {
  const field = shape[name];
  if (!field) return 'not used';
  const meta = settingMeta.get(field);
  if (meta?.defaultText) return meta.defaultText;
  const parsed = field.safeParse(undefined);
  if (!parsed.success) return 'required';
  const value: unknown = parsed.data;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '';
  return `\`${String(value)}\``;
}

/** A Markdown table laid out as Prettier lays it out, so that formatting the README leaves it unchanged. */
function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
