import type { z } from 'zod';
import type { Scope } from '@assistant/contracts';

/** Something a tool tells the run besides its result, turned into a stream event (e.g. `memory.saved`). */
export type ToolNotice = { type: 'memory.saved'; memory_id: string; content: string };

/** What a tool handler knows about the call it serves. */
export interface ToolContext<D = unknown> {
  userId: string;
  /** The family's driver for the connection this call goes through (the memory family's: the server's storage). */
  driver: D;
  discussionId: string | null;
  /** The user's IANA time zone, for tools that read or write times (calendar). */
  timeZone: string;
  /** Aborted when the call times out or the run is cancelled; long handlers should pass it on. */
  signal: AbortSignal;
  notify(notice: ToolNotice): void;
}

/** MCP's tool annotations (hints to a client; never a security boundary). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject, Output = unknown, D = unknown> {
  /** `<family>_<verb>` in snake_case; the same in queries, `GET /tools` and MCP. */
  name: string;
  description: string;
  input: Input;
  /** The scope a caller's token must hold for the assistant to use this tool on their behalf. */
  scope: Scope;
  /**
   * True for tools that change something outside the assistant (send mail, write a file, switch a light): a run
   * waits for the user's confirmation before calling them, unless the account allows the tool without asking.
   */
  side_effects: boolean;
  /**
   * The providers of its family whose connections can serve this tool (`web_search`: `searxng`, `brave`); absent
   * when every provider of the family can. The catalogue connects the tool to the account's first such connection.
   */
  providers?: readonly string[];
  annotations: ToolAnnotations;
  handler(input: z.infer<Input>, context: ToolContext<D>): Promise<Output>;
}

/** What `defineTool` is given: the tool's definition, its handler included. */
export interface ToolSpec<Input extends z.ZodObject, Output, D> {
  name: string;
  description: string;
  input: Input;
  scope: Scope;
  side_effects?: boolean;
  providers?: readonly string[];
  annotations?: ToolAnnotations;
  handler(input: z.infer<Input>, context: ToolContext<D>): Promise<Output>;
}

/**
 * What a custom tool module of a self-hosted server default-exports through `defineTool({...})`: a tool of its
 * own, with no family and no driver. Its scope may be left out (see `customToolScope`).
 */
export type CustomToolSpec<Input extends z.ZodObject, Output> = Omit<
  ToolSpec<Input, Output, undefined>,
  'scope' | 'providers'
> & { scope?: Scope };

/**
 * The scope of a custom tool that names none: the tool catalogue's own scopes, `read:tools` for a tool that
 * changes nothing and `write:tools` for one with side effects — so that a read-only token never runs a custom
 * tool that changes something.
 */
export function customToolScope(side_effects: boolean): Scope {
  return side_effects ? 'write:tools' : 'read:tools';
}

/**
 * Why a tool's scope does not fit its side effects, if it does not. A tool that changes something needs a
 * `write:` scope, so that a read-only token (an app's, a device's) never runs it: over MCP the tool runs at
 * once — the client asks its user — and the scope is all that stands between a token and the side effect.
 */
export function sideEffectsScopeProblem(tool: {
  side_effects?: unknown;
  scope?: unknown;
}): string | undefined {
  if (!tool.side_effects || (typeof tool.scope === 'string' && tool.scope.startsWith('write:')))
    return undefined;
  return `a tool with side effects needs a write: scope (${customToolScope(true)} when none is given), not ${String(tool.scope)}`;
}

/**
 * Marks what `defineTool` returned, so that a server loading a module can tell a tool from any other default
 * export. A registered symbol: the same for every copy of this package (a user's tools folder has its own).
 */
export const TOOL_DEFINITION = Symbol.for('@assistant/tool-kit:tool-definition');

/** Whether `value` was made by `defineTool` (of any copy of this package). */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[TOOL_DEFINITION] === true
  );
}

/**
 * Declares a tool: its name, what it is for, its input schema and what it may touch. MCP's hints default from
 * `side_effects` (a tool without side effects is read-only).
 *
 * A family's tool: `defineTool<Driver>()({...})`, typed with the family's driver. A custom tool of a self-hosted
 * server: `export default defineTool({...})`, whose scope defaults by its side effects (`customToolScope`).
 */
export function defineTool<D = unknown>(): <Input extends z.ZodObject, Output>(
  definition: ToolSpec<Input, Output, D>,
) => ToolDefinition<Input, Output, D>;
export function defineTool<Input extends z.ZodObject, Output>(
  definition: CustomToolSpec<Input, Output>,
): ToolDefinition<Input, Output, undefined>;
export function defineTool(definition?: CustomToolSpec<z.ZodObject, unknown>) {
  if (definition === undefined) return declare;
  const side_effects = definition.side_effects ?? false;
  return declare({ ...definition, scope: definition.scope ?? customToolScope(side_effects) });
}

function declare<Input extends z.ZodObject, Output, D>(
  definition: ToolSpec<Input, Output, D>,
): ToolDefinition<Input, Output, D> {
  if (typeof definition?.name !== 'string' || !/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(definition.name)) {
    throw new Error(`tool name "${definition?.name}" must be <family>_<verb> in snake_case`);
  }
  const side_effects = definition.side_effects ?? false;
  const problem = sideEffectsScopeProblem({ side_effects, scope: definition.scope });
  if (problem) throw new Error(`${definition.name}: ${problem}`);
  const tool: ToolDefinition<Input, Output, D> = {
    ...definition,
    side_effects,
    annotations: { readOnlyHint: !side_effects, ...definition.annotations },
  };
  // Not enumerable: it stays out of copies (`{...tool}`) and of what a log prints.
  Object.defineProperty(tool, TOOL_DEFINITION, { value: true });
  return tool;
}

/**
 * A call whose input does not fit the tool's schema. Its message is plain words ("content must be at most 8000
 * characters"): it goes back to the model as the tool's output, and from there into the answer.
 */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

/** Checks a call's input against the tool's schema and returns it parsed (trimmed, defaults filled in). */
export function parseToolInput<Input extends z.ZodObject>(
  definition: Pick<ToolDefinition<Input>, 'input'>,
  input: unknown,
): z.infer<Input> {
  const result = definition.input.safeParse(input);
  if (result.success) return result.data;
  throw new ToolInputError(describeIssues(result.error.issues));
}

/** One sentence from the schema's own messages, each prefixed by its field unless the message names it. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const field = issue.path.join('.');
      return !field || issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
    })
    .join('; ');
}

/** A tool ready for a run: its definition with the driver of the connection its calls go through. */
export type ConnectedTool = ToolDefinition<z.ZodObject, unknown, unknown> & { driver: unknown };

/** Binds a family's tool to the driver of one connection. */
export function connectTool<D>(
  definition: ToolDefinition<z.ZodObject, unknown, D>,
  driver: D,
): ConnectedTool {
  return { ...definition, driver };
}
