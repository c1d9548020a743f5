import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';

/** The settings schemas marked with `loginNeutral`: by identity, as they stand in their provider's object. */
const NEUTRAL = new WeakSet<z.ZodType>();

/**
 * Marks a provider's setting as one that changes neither where nor as whom its connection logs in (a From
 * address, a topic prefix): changing it keeps the connection's stored secrets. Every setting not marked — a URL, a
 * host, a port, TLS, a user name, and any setting added later — is taken as where or as whom the connection logs
 * in, and changing it needs the secrets again (`loginChanges`), so that a stored password is never sent to a
 * server, over a channel or as a user that the person who typed it did not choose. Mark the schema as it stands
 * in the settings object (outermost: after `.default()` and `.describe()`), since those return new schemas.
 */
export function loginNeutral<S extends z.ZodType>(setting: S): S {
  NEUTRAL.add(setting);
  return setting;
}

/**
 * The settings of `schema` whose value differs between `before` and `after` (both parsed by it) and that are not
 * marked `loginNeutral`: a change of where or as whom the connection logs in, which needs its secrets again.
 */
export function loginChanges(
  schema: z.ZodObject,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return names.filter((name) => {
    const setting = schema.shape[name] as z.ZodType | undefined;
    return !(setting && NEUTRAL.has(setting)) && !isDeepStrictEqual(before[name], after[name]);
  });
}
