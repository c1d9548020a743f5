import type { z } from 'zod';
import type { ProviderDefinition } from './family';

/**
 * One field of a provider's connection, read from its settings or secrets schema: the one description a form on
 * /profile is drawn from and the documentation's table of providers is written from, beside the API's validation
 * by the same schema. A provider declares its fields once, in zod; nothing else lists them.
 */
export interface ConnectionField {
  /** The key in `settings` or `secrets`. */
  name: string;
  /** For people: the name with its words and acronyms spelled out ("IMAP host"). */
  label: string;
  /** The schema's description, when it has one. */
  help?: string;
  kind: 'text' | 'url' | 'email' | 'number' | 'checkbox' | 'list' | 'password';
  /** Must be given: no default and not optional. */
  required: boolean;
  /** The value when none is given. */
  default?: unknown;
  /** Part of the secrets: write-only, never shown back, never logged. */
  secret: boolean;
}

/** Words a label spells in capitals. */
const ACRONYMS = new Set(['imap', 'smtp', 'tls', 'url', 'mqtt', 'api', 'id', 'dav']);

/** `imap_host` → `IMAP host`, `zigbee2mqtt_topic` → `Zigbee2mqtt topic`. */
export function fieldLabel(name: string): string {
  const words = name.split('_').map((word) => (ACRONYMS.has(word) ? word.toUpperCase() : word));
  const first = words[0] ?? '';
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

/** The schema inside `.default()` and `.optional()`, with what those say. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; optional: boolean; fallback?: unknown } {
  let inner = schema;
  let optional = false;
  let fallback: unknown;
  for (;;) {
    const def = inner.def as { type: string; innerType?: z.ZodType };
    if (def.type === 'default' && def.innerType) {
      fallback = inner.parse(undefined);
      optional = true;
      inner = def.innerType;
    } else if ((def.type === 'optional' || def.type === 'nullable') && def.innerType) {
      optional = true;
      inner = def.innerType;
    } else {
      return { inner, optional, fallback };
    }
  }
}

function kindOf(schema: z.ZodType, secret: boolean): ConnectionField['kind'] {
  if (secret) return 'password';
  const type = schema.def.type;
  if (type === 'number') return 'number';
  if (type === 'boolean') return 'checkbox';
  if (type === 'array') return 'list';
  const format = (schema as { format?: string | null }).format;
  if (format === 'url') return 'url';
  if (format === 'email') return 'email';
  return 'text';
}

function fieldsOf(schema: z.ZodObject, secret: boolean): ConnectionField[] {
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, setting]) => {
    const { inner, optional, fallback } = unwrap(setting);
    const help = setting.description ?? inner.description;
    return {
      name,
      label: fieldLabel(name),
      ...(help ? { help } : {}),
      kind: kindOf(inner, secret),
      required: !optional,
      ...(fallback !== undefined ? { default: fallback } : {}),
      secret,
    };
  });
}

/** A provider's fields: its settings, then its secrets. */
export function connectionFields(
  provider: Pick<ProviderDefinition, 'settings' | 'secrets'>,
): ConnectionField[] {
  return [...fieldsOf(provider.settings, false), ...fieldsOf(provider.secrets, true)];
}

/** A form's values: text fields as strings, a list as one entry per line, a checkbox present or absent. */
export type FormValues = Record<string, string | string[] | undefined>;

/**
 * The settings and secrets a posted form gives, in the shapes the provider's schemas check (numbers as numbers,
 * a checkbox as true or false, a list one entry per line); an empty optional field is left out, so that its
 * default holds. The schemas then judge them: this only converts.
 */
export function readConnectionForm(
  fields: readonly ConnectionField[],
  values: FormValues,
): { settings: Record<string, unknown>; secrets: Record<string, unknown> } {
  const settings: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = values[field.name];
    const text = (Array.isArray(raw) ? raw[0] : raw) ?? '';
    const into = field.secret ? secrets : settings;
    if (field.kind === 'checkbox') {
      into[field.name] = text !== '';
      continue;
    }
    if (field.kind === 'list') {
      into[field.name] = text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
      continue;
    }
    // Secrets are kept as typed (a password may start with a space); other text is trimmed.
    const value = field.secret ? text : text.trim();
    if (value === '' && !field.required) continue;
    into[field.name] = field.kind === 'number' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return { settings, secrets };
}
