import { getErrorMessage, type LanguageModelV3ToolResultPart } from '@ai-sdk/provider';
import type { QueryEventBody } from '@assistant/contracts';
import { callTool, parseToolInput, type ConnectedTool } from '@assistant/tool-kit';
import type { RunStop } from './run-stop';
import type { ModelToolCall } from './model-step';
import { toolResultOutput, type ToolOutcome } from './model-prompt';
import type { RunAround } from './run-around';

/** A side-effecting call waiting for the user's yes or no. */
export interface PendingCall {
  callId: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** `timeout`: nobody answered in time; the call is refused and the run ends (`confirmation_timeout`). */
export type ConfirmationOutcome = 'approved' | 'denied' | 'timeout';

/** What running a run's tool calls needs from the run. */
export interface ToolCallContext {
  tools: readonly ConnectedTool[];
  userId: string;
  discussionId: string;
  timeZone: string;
  toolTimeoutMs: number;
  confirm?: (call: PendingCall) => Promise<ConfirmationOutcome>;
  /** May still be being read when the run starts: it is needed only once a side-effecting call comes. */
  autoApproved?: readonly string[] | PromiseLike<readonly string[]>;
  /** See `RunInput.toolsMayRun`. */
  toolsMayRun?: PromiseLike<unknown>;
  /** See `RunInput.around`. */
  around?: RunAround;
  /**
   * The run's cancellation and time limit (`toolSignal`), the model's idle clock (paused while a tool works),
   * and what stops the run when a confirmation is not answered in time.
   */
  stop: Pick<RunStop, 'toolSignal' | 'pause' | 'resume' | 'unconfirmed'>;
  emit(event: QueryEventBody): void;
}

/** A call the user refused (or nobody confirmed); its `tool_call.completed` has already been told. */
class ToolCallDenied extends Error {}

/**
 * Runs the tool calls of a run as the model asks for them: checks each call (known tool, JSON input, the
 * tool's schema), asks the user before a side effect unless the account allows it, calls the tool within its
 * limit, tells the events (`tool_call.started`, `awaiting_confirmation`, `completed`), and gives each outcome
 * back in the form the model's next request carries. A call that fails fails alone; the run goes on.
 */
export class ToolCalls {
  private readonly byName: ReadonlyMap<string, ConnectedTool>;

  constructor(private readonly context: ToolCallContext) {
    this.byName = new Map(context.tools.map((tool) => [tool.name, tool]));
  }

  /**
   * Checks a call the moment it arrives: a call of a tool the run does not have, or whose input is not JSON,
   * cannot run, and is told at once (`started` and `completed` with the error). Returns that error's outcome,
   * or undefined for a call that may run.
   */
  refuse(call: ModelToolCall): LanguageModelV3ToolResultPart | undefined {
    let error: string | undefined;
    if (!this.byName.has(call.toolName)) {
      const available = [...this.byName.keys()];
      error = `Model tried to call unavailable tool '${call.toolName}'. ${
        available.length > 0 ? `Available tools: ${available.join(', ')}.` : 'No tools are available.'
      }`;
    } else if (call.inputError !== undefined) {
      error = `Invalid input for tool ${call.toolName}: ${getErrorMessage(call.inputError)}`;
    }
    if (error === undefined) return undefined;
    this.context.emit({
      type: 'tool_call.started',
      call_id: call.toolCallId,
      tool: call.toolName,
      arguments: objectOr(call.input),
    });
    this.context.emit({
      type: 'tool_call.completed',
      call_id: call.toolCallId,
      tool: call.toolName,
      status: 'error',
      error,
    });
    return resultPart(call, { ok: false, error });
  }

  /**
   * Runs a call that `refuse` let through; never rejects (a failure is the call's outcome). Several calls of
   * one step run at the same time.
   */
  async run(call: ModelToolCall): Promise<LanguageModelV3ToolResultPart> {
    const { emit } = this.context;
    const definition = this.byName.get(call.toolName)!;
    let started = false;
    try {
      // The input is checked here rather than by the model layer: a call that does not fit reaches the model,
      // and so the answer, as one plain sentence ("content must be at most 100 characters").
      const args = parseToolInput(definition, call.input) as Record<string, unknown>;
      started = true;
      emit({ type: 'tool_call.started', call_id: call.toolCallId, tool: definition.name, arguments: args });
      // The model is not expected to send anything while a tool works (or waits for the user): only the tool's
      // own limit, and the confirmation's deadline, apply.
      this.context.stop.pause();
      try {
        await this.confirmed(call.toolCallId, definition, args);
        await this.context.toolsMayRun;
        const runTool = () =>
          callTool(
            definition,
            args,
            {
              userId: this.context.userId,
              discussionId: this.context.discussionId,
              timeZone: this.context.timeZone,
              signal: this.context.stop.toolSignal,
              notify: (notice) => emit(notice),
            },
            this.context.toolTimeoutMs,
          );
        const { around } = this.context;
        const output = await (around ? around.toolCall(definition.name, runTool) : runTool());
        emit({
          type: 'tool_call.completed',
          call_id: call.toolCallId,
          tool: definition.name,
          status: 'ok',
          output,
        });
        return resultPart(call, { ok: true, output });
      } finally {
        this.context.stop.resume();
      }
    } catch (error) {
      if (!(error instanceof ToolCallDenied)) {
        if (!started) {
          emit({
            type: 'tool_call.started',
            call_id: call.toolCallId,
            tool: call.toolName,
            arguments: objectOr(call.input),
          });
        }
        emit({
          type: 'tool_call.completed',
          call_id: call.toolCallId,
          tool: call.toolName,
          status: 'error',
          error: getErrorMessage(error),
        });
      }
      return resultPart(call, { ok: false, error });
    }
  }

  /** Resolves once a side effect may happen; throws `ToolCallDenied` (already told) when it may not. */
  private async confirmed(
    callId: string,
    definition: ConnectedTool,
    args: Record<string, unknown>,
  ): Promise<void> {
    if (!definition.side_effects) return;
    if ((await this.context.autoApproved)?.includes(definition.name)) return;
    const { emit, confirm } = this.context;
    emit({
      type: 'tool_call.awaiting_confirmation',
      call_id: callId,
      tool: definition.name,
      arguments: args,
    });
    const outcome = confirm ? await confirm({ callId, tool: definition.name, arguments: args }) : 'denied';
    if (outcome === 'approved') return;
    const error =
      outcome === 'timeout'
        ? 'nobody confirmed it in time, so it was not done'
        : 'you did not approve it, so it was not done';
    emit({ type: 'tool_call.completed', call_id: callId, tool: definition.name, status: 'denied', error });
    if (outcome === 'timeout') this.context.stop.unconfirmed();
    throw new ToolCallDenied(error);
  }
}

function resultPart(call: ModelToolCall, outcome: ToolOutcome): LanguageModelV3ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: toolResultOutput(outcome),
  };
}

function objectOr(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
}
