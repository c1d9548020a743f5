import type { LanguageModelV3, LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import {
  LIMITS,
  problemOf,
  type ErrorCode,
  type QueryEventBody,
  type ToolCallRecord,
} from '@assistant/contracts';
import type { ConnectedTool, WithheldTool } from '@assistant/tool-kit';
import { builtinProviderOptions } from '../models/builtin/builtin-model';
import { systemPrompt, type PromptConnection } from './system-prompt';
import { DEFAULT_CONTEXT_TOKENS, historyWithin } from './history-budget';
import { describeModelError } from './model-errors';
import { appendStep, initialPrompt } from './model-prompt';
import { streamStep, type StepListener } from './model-step';
import { modelToolsOf } from './tool-schemas';
import { RunStop } from './run-stop';
import { ToolCalls, type ConfirmationOutcome, type PendingCall } from './tool-calls';
import type { RunAround } from './run-around';

export type { ConfirmationOutcome, PendingCall } from './tool-calls';

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
  /** What the families of `tools` tell a language model about them (`familyInstructions` of the tool kit). */
  instructions?: readonly string[];
  /** The user's IANA time zone. */
  timeZone: string;
  /** The account's display name, told to a language model. */
  userName?: string;
  /** The account's connections by name and family, told to a language model. */
  connections?: readonly PromptConnection[];
  /**
   * The model's context window in tokens (default DEFAULT_CONTEXT_TOKENS): `history` is cut to what it leaves,
   * oldest first; the question and the recalled memories are always kept.
   */
  contextTokens?: number;
  /** The account's other tools and why the run may not use them, so that the answer can say what to change. */
  withheldTools?: readonly WithheldTool[];
  /**
   * Asks the user about a call of a side-effecting tool and waits for the answer (the server owns the deadline).
   * Without it such calls are refused: nothing changes outside the assistant unless someone said yes.
   */
  confirm?: (call: PendingCall) => Promise<ConfirmationOutcome>;
  /**
   * Side-effecting tools the account lets the assistant use without asking. May still be being read when the
   * run starts: it is needed only once a side-effecting call comes.
   */
  autoApproved?: readonly string[] | PromiseLike<readonly string[]>;
  /**
   * Settles once what a tool may refer to is stored (the discussion, the question), when the caller stores
   * those beside the model call rather than before it: each tool call waits for it before the tool runs.
   */
  toolsMayRun?: PromiseLike<unknown>;
  /** Aborting it cancels the run (`query.incomplete`, reason `cancelled`). */
  signal: AbortSignal;
  limits?: Partial<RunLimits>;
  /** Wraps each model call and tool call (the server's tracing); absent, they are called directly. */
  around?: RunAround;
}

/**
 * Receives the run's events in order. The terminal event is awaited, so the receiver can store the answer
 * before anyone is told the run is over.
 */
export type RunEventSink = (event: QueryEventBody) => void | Promise<void>;

function failure(code: ErrorCode, detail: string, queryId: string): QueryEventBody {
  return { type: 'query.failed', error: problemOf(code, detail, queryId) };
}

/**
 * One query: the model, the tool loop (model → tool calls → results → model, at most `maxSteps` model calls),
 * time limits, cancellation, and the typed events of SPEC §4 — `query.created` first and exactly one terminal
 * event last. The loop drives the model's own stream (`doStream`) step by step: nothing sits between a token
 * and its event, and a tool's result goes into the next request by appending to the same prompt. (The AI SDK's
 * `streamText` did this before; measured in one process with the same model, it cost ~45 µs of CPU per token
 * against ~3 µs here, ~0.6 ms from the run's start to the model call against ~0.01 ms, and ~0.2 ms from a tool's
 * result to the next model call against ~0.01 ms.) The behaviour is the SDK's without tool-call repair: the
 * same prompt format, tools run once the model has finished its turn, several at once, and a call that cannot
 * run (unknown tool, input not JSON) goes back to the model as an error.
 */
/**
 * A run's first event (SPEC §4: always first), made from what the query's record keeps too, so that a query
 * ended after a crash before any of its events were stored starts with the same event (QueryRecovery).
 */
export function queryCreated(query: {
  queryId: string;
  discussionId: string;
  messageId: string;
  modelName: string;
}): Extract<QueryEventBody, { type: 'query.created' }> {
  return {
    type: 'query.created',
    query_id: query.queryId,
    discussion_id: query.discussionId,
    message_id: query.messageId,
    model: query.modelName,
  };
}

export async function runQuery(input: RunInput, emit: RunEventSink): Promise<void> {
  emit(queryCreated(input));
  const limits = { ...DEFAULT_RUN_LIMITS, ...input.limits };
  const stop = new RunStop(input.signal, limits.runTimeoutMs, limits.modelIdleMs);
  const toolCalls = new ToolCalls({
    tools: input.tools,
    userId: input.userId,
    discussionId: input.discussionId,
    timeZone: input.timeZone,
    toolTimeoutMs: limits.toolTimeoutMs,
    confirm: input.confirm,
    autoApproved: input.autoApproved,
    toolsMayRun: input.toolsMayRun,
    around: input.around,
    stop,
    emit,
  });
  // Everything a step's request holds besides the conversation is the same for every step: made once.
  const system = systemPrompt({
    recalled: input.recalled,
    instructions: input.instructions ?? [],
    timeZone: input.timeZone,
    userName: input.userName,
    connections: input.connections,
  });
  const history = historyWithin(input.history, input.contextTokens ?? DEFAULT_CONTEXT_TOKENS, {
    system,
    question: input.text,
  });
  const prompt = initialPrompt(system, history, input.text);
  const tools = input.tools.length > 0 ? modelToolsOf(input.tools) : undefined;
  const providerOptions = builtinProviderOptions({
    withheldTools: input.withheldTools ?? [],
    timeZone: input.timeZone,
    account: input.userId,
    discussion: input.discussionId,
  });
  let text = '';
  const usage = { input_tokens: 0, output_tokens: 0 };
  const listener: StepListener = {
    alive: stop.touch,
    text: (delta: string) => {
      text += delta;
      emit({ type: 'output_text.delta', delta });
    },
    toolCall: () => undefined,
  };

  let terminal: QueryEventBody | undefined;
  try {
    let finishReason = 'stop';
    let askedForTools = false;
    for (let step = 1; step <= limits.maxSteps; step++) {
      /** Outcomes of the step's calls, in the order the model made them; refused ones are known at once. */
      const outcomes: Array<LanguageModelV3ToolResultPart | undefined> = [];
      listener.toolCall = (call) => void outcomes.push(toolCalls.refuse(call));
      stop.touch();
      const callModel = () =>
        streamStep(
          input.model,
          { prompt, tools, toolChoice: tools && { type: 'auto' }, providerOptions },
          stop,
          listener,
        );
      const result = await (input.around ? input.around.modelCall(step, callModel) : callModel());
      usage.input_tokens += result.inputTokens ?? 0;
      usage.output_tokens += result.outputTokens ?? 0;
      finishReason = result.finishReason;
      askedForTools = result.toolCalls.length > 0;
      // As the AI SDK: tools run once the model has finished its turn, all of the step's calls at once, and
      // only when it finished normally (not cut off by its length limit or a content filter).
      if (!askedForTools || (finishReason !== 'tool-calls' && finishReason !== 'stop')) {
        askedForTools = false;
        break;
      }
      const results = await Promise.all(
        result.toolCalls.map((call, i) => outcomes[i] ?? toolCalls.run(call)),
      );
      appendStep(prompt, result.content, results);
      // A confirmation that nobody answered ends the run here; so does a cancellation during the tools.
      stop.signal.throwIfAborted();
    }
    terminal =
      stopped(stop, input.queryId) ??
      // The last step allowed still asked for tools: the answer was cut short.
      (askedForTools
        ? { type: 'query.incomplete', reason: 'max_steps' }
        : {
            type: 'query.completed',
            message_id: input.messageId,
            text,
            usage,
            finish_reason: finishReason,
          });
  } catch (error) {
    const described = describeModelError(error);
    terminal = stopped(stop, input.queryId) ?? failure(described.code, described.detail, input.queryId);
  }
  stop.dispose();
  await emit(terminal);
}

/** The terminal event of a run that was stopped, if it was: a cancellation first, whatever else happened too. */
function stopped(stop: RunStop, queryId: string): QueryEventBody | undefined {
  const { causes } = stop;
  if (causes.cancelled) return { type: 'query.incomplete', reason: 'cancelled' };
  if (causes.unconfirmed) return { type: 'query.incomplete', reason: 'confirmation_timeout' };
  if (causes.timedOut) return { type: 'query.incomplete', reason: 'timeout' };
  if (causes.idle)
    return failure('model_unavailable', stop.idleReason?.message ?? 'the model went quiet', queryId);
  return undefined;
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
