import type { ModelMessage, ToolSet } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import {
  LIMITS,
  problemOf,
  type ErrorCode,
  type QueryEventBody,
  type ToolCallRecord,
} from '@assistant/contracts';
import { callTool, parseToolInput, type ConnectedTool, type WithheldTool } from '@assistant/tool-kit';
import { builtinProviderOptions } from '../models/builtin/builtin-model';
import { systemPrompt } from './system-prompt';
import { describeModelError } from './model-errors';

export interface RunLimits {
  maxSteps: number;
  runTimeoutMs: number;
  toolTimeoutMs: number;
  /** A model that sends nothing for this long has hung: the run fails with `model_unavailable`. */
  modelIdleMs: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxSteps: LIMITS.maxToolStepsPerRun,
  runTimeoutMs: LIMITS.maxRunSeconds * 1000,
  toolTimeoutMs: LIMITS.maxToolCallSeconds * 1000,
  modelIdleMs: 60_000,
};

export interface RunInput {
  queryId: string;
  discussionId: string;
  messageId: string;
  userId: string;
  modelName: string;
  model: LanguageModelV3;
  text: string;
  /** Earlier messages of the discussion, oldest first. */
  history: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>;
  /** Memories recalled for this question, most relevant first; they go into the model's context. */
  recalled: ReadonlyArray<{ content: string; created_at: string }>;
  /** The tools the run may use, each with the driver of the connection it goes through. */
  tools: readonly ConnectedTool[];
  /** The user's IANA time zone. */
  timeZone: string;
  /** The account's other tools and why the run may not use them, so that the answer can say what to change. */
  withheldTools?: readonly WithheldTool[];
  /**
   * Asks the user about a call of a side-effecting tool and waits for the answer (the server owns the deadline).
   * Without it such calls are refused: nothing changes outside the assistant unless someone said yes.
   */
  confirm?: (call: PendingCall) => Promise<ConfirmationOutcome>;
  /** Side-effecting tools the account lets the assistant use without asking. */
  autoApproved?: readonly string[];
  /** Aborting it cancels the run (`query.incomplete`, reason `cancelled`). */
  signal: AbortSignal;
  limits?: Partial<RunLimits>;
}

/** A side-effecting call waiting for the user's yes or no. */
export interface PendingCall {
  callId: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** `timeout`: nobody answered in time; the call is refused and the run ends (`confirmation_timeout`). */
export type ConfirmationOutcome = 'approved' | 'denied' | 'timeout';

/**
 * Receives the run's events in order. The terminal event is awaited, so the receiver can store the answer
 * before anyone is told the run is over.
 */
export type RunEventSink = (event: QueryEventBody) => void | Promise<void>;

class ToolCallDenied extends Error {}

class ModelIdle extends Error {}

/** Aborts when `touch()` has not been called for `ms`; paused while tools run, since only the model can hang here. */
function idleWatchdog(ms: number) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let paused = 0;
  const arm = () => {
    clearTimeout(timer);
    if (paused === 0)
      timer = setTimeout(
        () => controller.abort(new ModelIdle(`the model sent nothing for ${ms / 1000} s`)),
        ms,
      );
  };
  return {
    signal: controller.signal,
    touch: arm,
    pause: () => {
      paused++;
      clearTimeout(timer);
    },
    resume: () => {
      paused--;
      arm();
    },
    stop: () => clearTimeout(timer),
  };
}

function failure(code: ErrorCode, detail: string, queryId: string): QueryEventBody {
  return { type: 'query.failed', error: problemOf(code, detail, queryId) };
}

/**
 * One query: the model, the tool loop (model → tool calls → results → model, at most 8 steps), time limits,
 * cancellation, and the typed events of SPEC §4 — `query.created` first and exactly one terminal event last.
 */
export async function runQuery(input: RunInput, emit: RunEventSink): Promise<void> {
  emit({
    type: 'query.created',
    query_id: input.queryId,
    discussion_id: input.discussionId,
    message_id: input.messageId,
    model: input.modelName,
  });
  // Imported on the first query rather than at start-up: the AI SDK is the largest thing the server loads.
  const { streamText, stepCountIs, tool, jsonSchema, zodSchema } = await import('ai');
  const limits = { ...DEFAULT_RUN_LIMITS, ...input.limits };
  const runTimeout = AbortSignal.timeout(limits.runTimeoutMs);
  const idle = idleWatchdog(limits.modelIdleMs);
  const signal = AbortSignal.any([input.signal, runTimeout]);
  // Aborted when a confirmation is not answered in time: the run stops there.
  const unconfirmed = new AbortController();
  const modelSignal = AbortSignal.any([signal, idle.signal, unconfirmed.signal]);
  const started = new Set<string>();
  /** Calls whose end was already told (refused before they ran). */
  const reported = new Set<string>();
  let text = '';

  const tools: ToolSet = {};
  for (const definition of input.tools) {
    tools[definition.name] = tool({
      description: definition.description,
      // The model sees the input's JSON Schema, but the input is checked here, in execute: a call that does not
      // fit then reaches the model, and so the answer, as one plain sentence instead of the SDK's validation dump.
      inputSchema: jsonSchema<Record<string, unknown>>(() => zodSchema(definition.input).jsonSchema),
      execute: async (raw: Record<string, unknown>, { toolCallId }) => {
        const args = parseToolInput(definition, raw);
        started.add(toolCallId);
        emit({ type: 'tool_call.started', call_id: toolCallId, tool: definition.name, arguments: args });
        // The model is not expected to send anything while a tool works (or waits for the user): only the
        // tool's own limit, and the confirmation's deadline, apply.
        idle.pause();
        try {
          if (definition.side_effects && !input.autoApproved?.includes(definition.name)) {
            const call = { callId: toolCallId, tool: definition.name, arguments: args };
            emit({
              type: 'tool_call.awaiting_confirmation',
              call_id: toolCallId,
              tool: call.tool,
              arguments: args,
            });
            const outcome = input.confirm ? await input.confirm(call) : 'denied';
            if (outcome !== 'approved') {
              const error =
                outcome === 'timeout'
                  ? 'nobody confirmed it in time, so it was not done'
                  : 'you did not approve it, so it was not done';
              reported.add(toolCallId);
              emit({
                type: 'tool_call.completed',
                call_id: toolCallId,
                tool: call.tool,
                status: 'denied',
                error,
              });
              if (outcome === 'timeout') unconfirmed.abort();
              throw new ToolCallDenied(error);
            }
          }
          return await callTool(
            definition,
            args,
            {
              userId: input.userId,
              discussionId: input.discussionId,
              timeZone: input.timeZone,
              signal,
              notify: (notice) => emit(notice),
            },
            limits.toolTimeoutMs,
          );
        } finally {
          idle.resume();
        }
      },
    });
  }

  const messages: ModelMessage[] = [
    ...input.history.map((m) => ({ role: m.role, content: m.text }) as ModelMessage),
    { role: 'user', content: input.text },
  ];

  let terminal: QueryEventBody | undefined;
  try {
    const result = streamText({
      model: input.model,
      system: systemPrompt(
        input.recalled,
        input.tools.map((t) => t.name),
      ),
      messages,
      tools,
      stopWhen: stepCountIs(limits.maxSteps),
      providerOptions: builtinProviderOptions({
        withheldTools: input.withheldTools ?? [],
        timeZone: input.timeZone,
      }),
      abortSignal: modelSignal,
      maxRetries: 0,
    });
    idle.touch();
    let lastFinish: string | undefined;
    let usage = { input_tokens: 0, output_tokens: 0 };
    for await (const part of result.fullStream) {
      idle.touch();
      switch (part.type) {
        case 'text-delta':
          if (part.text) {
            text += part.text;
            emit({ type: 'output_text.delta', delta: part.text });
          }
          break;
        case 'tool-result': {
          emit({
            type: 'tool_call.completed',
            call_id: part.toolCallId,
            tool: part.toolName,
            status: 'ok',
            output: part.output,
          });
          break;
        }
        case 'tool-error': {
          if (reported.has(part.toolCallId)) break;
          const message = part.error instanceof Error ? part.error.message : String(part.error);
          if (!started.has(part.toolCallId)) {
            // The model asked for a tool that is not allowed here, with input that does not fit its schema, or
            // with input that is not JSON.
            const args = (typeof part.input === 'object' && part.input ? part.input : {}) as Record<
              string,
              unknown
            >;
            emit({
              type: 'tool_call.started',
              call_id: part.toolCallId,
              tool: part.toolName,
              arguments: args,
            });
          }
          emit({
            type: 'tool_call.completed',
            call_id: part.toolCallId,
            tool: part.toolName,
            status: 'error',
            error: message,
          });
          break;
        }
        case 'finish':
          lastFinish = part.finishReason;
          usage = {
            input_tokens: part.totalUsage.inputTokens ?? 0,
            output_tokens: part.totalUsage.outputTokens ?? 0,
          };
          break;
        case 'error':
          throw part.error;
        default:
          break;
      }
    }
    if (input.signal.aborted) terminal = { type: 'query.incomplete', reason: 'cancelled' };
    else if (unconfirmed.signal.aborted)
      terminal = { type: 'query.incomplete', reason: 'confirmation_timeout' };
    else if (runTimeout.aborted) terminal = { type: 'query.incomplete', reason: 'timeout' };
    else if (idle.signal.aborted)
      terminal = failure('model_unavailable', (idle.signal.reason as Error).message, input.queryId);
    else if (lastFinish === 'tool-calls') terminal = { type: 'query.incomplete', reason: 'max_steps' };
    else
      terminal = {
        type: 'query.completed',
        message_id: input.messageId,
        text,
        usage,
        finish_reason: lastFinish ?? 'stop',
      };
  } catch (error) {
    if (input.signal.aborted) terminal = { type: 'query.incomplete', reason: 'cancelled' };
    else if (unconfirmed.signal.aborted)
      terminal = { type: 'query.incomplete', reason: 'confirmation_timeout' };
    else if (runTimeout.aborted) terminal = { type: 'query.incomplete', reason: 'timeout' };
    else if (idle.signal.aborted) {
      terminal = failure('model_unavailable', (idle.signal.reason as Error).message, input.queryId);
    } else {
      const described = describeModelError(error);
      terminal = failure(described.code, described.detail, input.queryId);
    }
  }
  idle.stop();
  await emit(terminal);
}

/** What the run did, for storing the answer with its tool calls. */
export function toolCallsOf(events: readonly QueryEventBody[]): ToolCallRecord[] {
  const records = new Map<string, ToolCallRecord>();
  for (const event of events) {
    if (event.type === 'tool_call.started') {
      records.set(event.call_id, {
        call_id: event.call_id,
        tool: event.tool,
        arguments: event.arguments,
        status: 'ok',
      });
    } else if (event.type === 'tool_call.completed') {
      const record = records.get(event.call_id);
      if (record)
        Object.assign(record, {
          status: event.status,
          ...(event.output !== undefined ? { output: event.output } : {}),
          ...(event.error ? { error: event.error } : {}),
        });
    }
  }
  return [...records.values()];
}
