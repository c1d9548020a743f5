import type { ConnectedTool, ToolContext } from './define-tool';

/** A tool call that ran out of its time. */
export class ToolCallTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolCallTimeout';
  }
}

/**
 * A tool's output as plain JSON data, copied once (`undefined` stays: the tool gave nothing). An output goes to
 * the event stream and to the model, both JSON: one that cannot be written so (a cycle, a BigInt, a `toJSON` that
 * throws) fails its call here with a message, rather than the whole query later; and the copy cannot change or
 * throw (a getter, a `toJSON`) when it is written out again.
 */
export function jsonOutput(tool: string, output: unknown): unknown {
  if (output === undefined) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(output);
  } catch (error) {
    throw new Error(`${tool} gave an output that cannot be sent as JSON: ${whyNotJson(error)}`);
  }
  if (text === undefined) {
    throw new Error(`${tool} gave an output that cannot be sent as JSON: it is a ${typeof output}`);
  }
  return JSON.parse(text);
}

/** What `JSON.stringify` ran into, in words. */
function whyNotJson(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TypeError && /circular/i.test(message)) return 'it refers to itself';
  if (error instanceof TypeError && /BigInt/.test(message)) return 'it holds a BigInt';
  if (error instanceof RangeError && /call stack/i.test(message)) return 'it is nested too deeply';
  return message.split('\n')[0];
}

/**
 * Calls a connected tool with the per-call time limit, the one way every consumer (a query's run, MCP) calls
 * tools: the handler gets a signal that aborts at the limit or with the caller's, and a handler that ignores it
 * still loses the race — its call fails, nothing else does. What it gives back is plain JSON (`jsonOutput`).
 */
export function callTool(
  tool: ConnectedTool,
  input: unknown,
  context: Omit<ToolContext, 'driver'>,
  timeoutMs: number,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  return new Promise((resolve, reject) => {
    const onAbort = () =>
      reject(
        timeout.aborted
          ? new ToolCallTimeout(`${tool.name} took longer than ${timeoutMs / 1000} s`)
          : signal.reason,
      );
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve()
      .then(() => tool.handler(input as never, { ...context, driver: tool.driver, signal }))
      .then((output) => jsonOutput(tool.name, output))
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
