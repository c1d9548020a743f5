import { z } from 'zod';
import { ToolInputError, type ToolDefinition } from './define-tool';

/**
 * The optional argument of every tool of a family with connections (email, calendar, files, web, home): which of
 * the account's connections of the family the call goes through, by name ("Work", "Personal"). Left out, the
 * call goes through the family's default connection. Declared here once, so that every family's tools take it
 * and no tool declares it itself; the server adds it to each tool's input schema, where a language model and MCP
 * clients read it.
 */
export const CONNECTION_ARGUMENT = 'connection';

/** A connection a tool call may go through: its name, and whether it is the family's default. */
export interface NamedConnection {
  name: string;
  isDefault: boolean;
}

/** The argument's schema: what a model reads to choose, with the account's names when they are known. */
export function connectionArgument(family: string, connections?: readonly NamedConnection[]) {
  const names = connections?.map((c) => (c.isDefault ? `${c.name} (the default)` : c.name));
  const which = names && names.length > 0 ? ` The account's ${family} connections: ${names.join(', ')}.` : '';
  return z
    .string()
    .max(100)
    .optional()
    .describe(
      `Which of the user's ${family} connections to use, by its name (such as "Work" for "in my work ${family}"); leave it out for the default one.${which}`,
    );
}

/** A family tool's definition with the `connection` argument added to its input schema (its handler unchanged). */
export function withConnectionArgument<T extends ToolDefinition<z.ZodObject, unknown, unknown>>(
  tool: T,
  family: string,
  connections?: readonly NamedConnection[],
): T {
  if (CONNECTION_ARGUMENT in tool.input.shape) return tool;
  return {
    ...tool,
    input: tool.input.extend({ [CONNECTION_ARGUMENT]: connectionArgument(family, connections) }),
  };
}

/** Splits a call's input into the connection it names (if any) and the tool's own input. */
export function takeConnectionArgument(input: Record<string, unknown>): {
  named: string | undefined;
  rest: Record<string, unknown>;
} {
  const { [CONNECTION_ARGUMENT]: named, ...rest } = input;
  return { named: typeof named === 'string' && named.trim() !== '' ? named.trim() : undefined, rest };
}

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const within = (some: readonly string[], all: readonly string[]) =>
  some.length > 0 && some.every((word) => all.includes(word));

/**
 * The connection of that name, whatever its case; else the one connection whose name and the given one hold each
 * other's words ("work" or "work mail" for a connection named "Work mail", "Work" for "my work account"). Two such
 * connections are none: the call must say which.
 */
function byName<C extends NamedConnection>(candidates: readonly C[], named: string): C | undefined {
  const exact = candidates.find((c) => c.name.toLowerCase() === named.toLowerCase());
  if (exact) return exact;
  const asked = wordsOf(named);
  const close = candidates.filter((c) => {
    const name = wordsOf(c.name);
    return within(asked, name) || within(name, asked);
  });
  return close.length === 1 ? close[0] : undefined;
}

/**
 * The connection a call goes through: the one it names (whatever its case, or by the words of its name), else the default when it can serve
 * the tool, else the first that can. A name the account has none of is a clear error that lists the names, for
 * the model (or the user) to choose again; so is a named connection whose provider cannot serve the tool.
 */
export function chooseConnection<C extends NamedConnection>(
  tool: string,
  family: string,
  named: string | undefined,
  candidates: readonly C[],
  serves: (candidate: C) => boolean,
): C | undefined {
  if (named === undefined) {
    return candidates.find((c) => c.isDefault && serves(c)) ?? candidates.find(serves);
  }
  const found = byName(candidates, named);
  const names = candidates.map((c) => c.name).join(', ');
  if (!found) {
    throw new ToolInputError(
      candidates.length > 0
        ? `there is no ${family} connection named "${named}"; the account's are: ${names}`
        : `there is no ${family} connection named "${named}": the account has none`,
    );
  }
  if (!serves(found)) {
    const able = candidates.filter(serves).map((c) => c.name);
    throw new ToolInputError(
      `the ${family} connection "${found.name}" cannot do ${tool}` +
        (able.length > 0 ? `; these can: ${able.join(', ')}` : ''),
    );
  }
  return found;
}
