import type { ModelCallSummary, RunAround } from '@assistant/agent-core';
import { endWhenSettled, tracing, type Tracing } from './tracing';

/**
 * Runs a query run in a `query.run` span of its own (a child of the request that started it), with a child span
 * for each model call and each tool call. Attributes are identifiers and counts only: the model's configured
 * name, the tool's name, token counts, the finish reason; never the question, the answer, a tool's input or
 * output, nor an error's message. When tracing is off, `run` is called with no wrappers and nothing else happens.
 */
export function traceQueryRun<T>(
  queryId: string,
  modelName: string,
  run: (around: RunAround | undefined) => Promise<T>,
): Promise<T> {
  const active = tracing();
  if (!active) return run(undefined);
  const { api, tracer } = active;
  const span = tracer.startSpan('query.run', {
    attributes: { 'assistant.query.id': queryId, 'gen_ai.request.model': modelName },
  });
  const context = api.trace.setSpan(api.context.active(), span);
  return endWhenSettled(
    span,
    api,
    api.context.with(context, () => run(aroundSteps(active, modelName))),
  );
}

/**
 * A tool called outside a query run (by an MCP client) in an `execute_tool` span of its own, a child of the
 * request; as in a run, only the tool's name is recorded. When tracing is off, `call` is called and that is all.
 */
export function traceToolCall<T>(tool: string, call: () => Promise<T>): Promise<T> {
  const active = tracing();
  return active ? inSpan(active, ...toolSpan(tool), call) : call();
}

function toolSpan(tool: string): [string, Record<string, string>] {
  return [`execute_tool ${tool}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool }];
}

/** Runs `call` in a span of its own, active while it runs, ended when it settles (failed when it rejects). */
function inSpan<T>(
  { api, tracer }: Tracing,
  name: string,
  attributes: Record<string, string | number>,
  call: () => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, (span) => endWhenSettled(span, api, call()));
}

function aroundSteps(active: Tracing, modelName: string): RunAround {
  const { api } = active;
  return {
    modelCall: <T extends ModelCallSummary>(step: number, call: () => Promise<T>) =>
      inSpan(
        active,
        `chat ${modelName}`,
        { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': modelName, 'assistant.run.step': step },
        async () => {
          const result = await call();
          const span = api.trace.getActiveSpan();
          span?.setAttributes({
            'gen_ai.response.finish_reasons': [result.finishReason],
            ...(result.inputTokens !== undefined ? { 'gen_ai.usage.input_tokens': result.inputTokens } : {}),
            ...(result.outputTokens !== undefined
              ? { 'gen_ai.usage.output_tokens': result.outputTokens }
              : {}),
          });
          return result;
        },
      ),
    toolCall: <T>(tool: string, call: () => Promise<T>) => inSpan(active, ...toolSpan(tool), call),
  };
}
