import type { ConnectedTool, ToolContext } from './define-tool';

/** A tool call that ran out of its time. */
export class ToolCallTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolCallTimeout';
  }
}

/**
 * Calls a connected tool with the per-call time limit, the one way every consumer (a query's run, MCP) calls
 * tools: the handler gets a signal that aborts at the limit or with the caller's, and a handler that ignores it
 * still loses the race — its call fails, nothing else does.
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
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
