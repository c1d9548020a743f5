import {
  asSentence,
  defineFamily,
  joinAnd,
  type BuiltinAction,
  type PhraseRule,
  type ToolFamily,
} from '@assistant/tool-kit';
import type { CustomToolsFolder } from './custom-tools-folder';

/**
 * The custom tools of a self-hosted server as one more family of the catalogue: no provider and no driver, its
 * tools whatever the folder holds at the moment (`tools` is read anew each time), and a change of the folder
 * told through `onToolsChanged`. Every account of the server has them.
 */
export function customFamily(folder: CustomToolsFolder): ToolFamily {
  return defineFamily<unknown>({
    name: 'custom',
    description: "The self-hosted server's own tools, loaded from its tools folder.",
    topic: { about: 'custom tools', keywords: ['custom tool'] },
    providers: [],
    get tools() {
      return folder.tools;
    },
    onToolsChanged: (listener) => folder.onChange(listener),
    phrases: customPhrases,
    answer: customAnswer,
    unavailable: (tool, available) => {
      const custom = available.filter((name) => name.startsWith('custom_'));
      return custom.length > 0
        ? `There is no custom tool ${tool} here. The custom tools here are ${joinAnd(custom)}.`
        : `There is no custom tool ${tool} here: this query has no custom tools at all.`;
    },
  });
}

/** "run <tool> with <JSON or key=value …>": the tool by its name, `custom_` optional (`order_status`). */
export const customPhrases: PhraseRule[] = [
  {
    intent: 'custom.run',
    examples: [
      'run custom_order_status with id=A-17',
      'run order_status with {"id": "A-17"}',
      'Please run custom_greet with name="Ada Lovelace", polite=true.',
      'call custom_order_status with id=42 and verbose=false',
      'run custom_ping',
    ],
    // A name in snake_case ("run the dishwasher" is no tool's name).
    patterns: [/^(?:run|call) (?:the )?(?:tool )?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?: tool)?(?: with (.+))?$/i],
    act: (m) => runAction(m[1], m[2]),
    offers: {
      tool: 'custom_*',
      can: 'run your custom tools by name ("run custom_<name> with key=value …")',
    },
  },
];

function runAction(name: string, given: string | undefined): BuiltinAction {
  const lower = name.toLowerCase();
  const tool = lower.startsWith('custom_') ? lower : `custom_${lower}`;
  const input = given === undefined ? {} : parseInput(given.trim());
  if (typeof input === 'string') {
    return {
      kind: 'text',
      text: `I couldn't read the input for ${tool}: ${input}. Give it as JSON ({"id": 42}) or as key=value pairs (id=42 name="Ada").`,
    };
  }
  return { kind: 'tool', tool, input };
}

/** Text in double quotes, its escapes as JSON writes them. */
const DOUBLE_QUOTED = /^"(?:[^"\\]|\\.)*"$/;
/** One value of a `key=value` pair: quoted text, or a word (a number, true, false and null as JSON reads them). */
const PAIR = /^\s*(?:,|and\b)?\s*([A-Za-z_][\w.-]*)\s*[=:]\s*("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,]+)/;

/** The input of "with …": a JSON object, or `key=value` pairs; a string says what is wrong. */
export function parseInput(text: string): Record<string, unknown> | string {
  if (/^[[{]/.test(text)) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    } catch (error) {
      return `it is not valid JSON (${(error as Error).message})`;
    }
    return 'it is not a JSON object';
  }
  const input: Record<string, unknown> = {};
  let rest = text;
  while (rest.trim() !== '') {
    const pair = PAIR.exec(rest);
    if (!pair) return `"${rest.trim()}" is not a key=value pair`;
    input[pair[1]] = valueOf(pair[2]);
    rest = rest.slice(pair[0].length);
  }
  return input;
}

/**
 * A value as typed. Total: whatever the words, a value comes out (text at worst), as a request is hostile text and
 * the built-in model must answer it.
 */
function valueOf(raw: string): unknown {
  if (DOUBLE_QUOTED.test(raw)) return unquote(raw);
  if (raw.length > 1 && raw.startsWith("'") && raw.endsWith("'")) return raw.slice(1, -1);
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (raw === 'null') return null;
  // A number only when it reads back as typed: `007`, `1.50` or twenty digits stay text (a number changes them).
  const number = Number(raw);
  return /^-?\d+(?:\.\d+)?$/.test(raw) && String(number) === raw ? number : raw;
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** A double-quoted text: the escapes JSON knows (`\"`, `\\`, `\n`, `\u00e9`) read, any other backslash kept as typed. */
function unquote(quoted: string): string {
  return quoted
    .slice(1, -1)
    .replace(/\\(u[0-9a-fA-F]{4}|[^])/g, (whole, escape: string) =>
      escape.length === 5 ? String.fromCharCode(parseInt(escape.slice(1), 16)) : (ESCAPES[escape] ?? whole),
    );
}

/** The tool's output in a plain sentence. */
export function customAnswer(tool: string, output: unknown): string {
  if (output === null || output === undefined) return `${tool} is done; it returned nothing.`;
  if (typeof output === 'object' && !Array.isArray(output)) {
    const fields = Object.entries(output as Record<string, unknown>).map(
      ([key, value]) => `${key} ${spoken(value)}`,
    );
    return fields.length > 0 ? `${tool} answered with ${joinAnd(fields)}.` : `${tool} answered with nothing.`;
  }
  return `${tool} says: ${asSentence(spoken(output))}`;
}

function spoken(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return joinAnd(value.map(spoken));
  return JSON.stringify(value) ?? String(value);
}
