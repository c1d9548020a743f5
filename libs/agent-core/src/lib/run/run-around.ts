/** What a model call came to, as far as someone watching the run may know: no text, no tool input. */
export interface ModelCallSummary {
  finishReason: string;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

/**
 * Wraps each model call and each tool call of a run, for whoever watches runs from outside (the server's
 * tracing). Each wrapper must call `call` exactly once and hand back what it gives, rejection included. The
 * run knows nothing of what the wrappers do; without them it calls directly.
 */
export interface RunAround {
  /** One model call (one step of the run, counted from 1). */
  modelCall<T extends ModelCallSummary>(step: number, call: () => Promise<T>): Promise<T>;
  /** One tool call that runs (a refused or unconfirmed call never gets here). */
  toolCall<T>(tool: string, call: () => Promise<T>): Promise<T>;
}
