import { OperatorError } from '@assistant/contracts';
import type { z } from 'zod';
import { flagName, settingMeta, type SelfHostFlags } from './settings';

type Env = Record<string, string | undefined>;
type SettingsSchema = z.ZodObject<Record<string, z.ZodType>>;

/**
 * The settings of a composition root: each one from its flag, else its environment variable, else its default.
 * An empty or blank value counts as unset (`ASSISTANT_PORT=` in a compose file), and values are trimmed (a
 * stray space in an env file). Every bad value is named in one line, with what it accepts.
 */
export function readSettings<S extends SettingsSchema>(
  schema: S,
  env: Env,
  flags: SelfHostFlags = {},
): z.output<S> {
  const input: Record<string, string> = {};
  const givenAs = new Map<string, string>();
  for (const [name, field] of Object.entries(schema.shape)) {
    const flag = settingMeta.get(field)?.flag;
    const fromFlag = flag === undefined ? undefined : nonBlank(flags[flag]);
    const value = fromFlag ?? nonBlank(env[name]);
    if (value === undefined) continue;
    input[name] = value;
    givenAs.set(name, fromFlag === undefined || flag === undefined ? name : flagName(flag));
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new OperatorError(
    parsed.error.issues
      .map((issue) => {
        const name = String(issue.path[0]);
        const raw = input[name];
        if (raw === undefined) return `${name} is required: ${issue.message}`;
        const secret = settingMeta.get(schema.shape[name] as z.ZodType)?.secret;
        return `${givenAs.get(name)} must be ${issue.message}${secret ? '' : ` (got ${JSON.stringify(raw)})`}`;
      })
      .join('; '),
  );
}

/**
 * ASSISTANT_* variables that the project's other programs read, and that may well be set where a server starts:
 * the client's connection (`assistant chat`, bots) and the test suites' database.
 */
const READ_BY_OTHER_PROGRAMS = new Set([
  'ASSISTANT_BASE_URL',
  'ASSISTANT_API_TOKEN',
  'ASSISTANT_TEST_DATABASE_URL',
]);

/**
 * A warning for each ASSISTANT_* variable that is no setting of this server, most likely a typo. A warning, not
 * a refusal: the environment is shared with other programs and other versions (a rollback must still start).
 */
export function unknownSettingWarnings(schema: SettingsSchema, env: Env, server: string): string[] {
  const known = Object.keys(schema.shape);
  return Object.keys(env)
    .filter(
      (name) => name.startsWith('ASSISTANT_') && !known.includes(name) && !READ_BY_OTHER_PROGRAMS.has(name),
    )
    .sort()
    .map((name) => {
      const likely = known.find((setting) => editDistance(name, setting) <= 2);
      return `${name} is not a setting of ${server} and is ignored${likely ? `; did you mean ${likely}?` : ''}`;
    });
}

/** Writes warnings the way start-up errors are written, one line each on stderr. */
export function warnOnStderr(line: string): void {
  process.stderr.write(`assistant: warning: ${line}\n`);
}

function nonBlank(value: string | number | undefined): string | undefined {
  const text = value === undefined ? '' : String(value).trim();
  return text === '' ? undefined : text;
}

/** Levenshtein distance: how many letters to insert, delete or change to turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}
