/** Why a run's model call was stopped: it went quiet for too long. */
export class ModelIdle extends Error {}

/** Why a run was stopped at its time limit. */
export class RunTimedOut extends Error {}

/** Why a run stopped at a side effect that nobody confirmed in time. */
export class Unconfirmed extends Error {}

/** Everything that can stop a run before it ends by itself, each noted separately (see `runQuery`'s terminal). */
export interface StopCauses {
  cancelled: boolean;
  timedOut: boolean;
  idle: boolean;
  unconfirmed: boolean;
}

/** Signals a model call with the run's stop, and lets the step loop react to it without an event listener. */
export interface StepAbort {
  signal: AbortSignal;
  /** Calls `hook` once the run stops (at once if it has); returns what unregisters it. */
  watch(hook: () => void): () => void;
}

/**
 * Stops a run: when it is cancelled (the caller's signal), at its time limit, when the model goes quiet for too
 * long (paused while tools run, since only the model can hang there) or when a confirmation was not answered in
 * time. Tools get `toolSignal` (cancellation and time limit only: an idle model does not cut a tool short); the
 * model gets `modelSignal` (all four).
 *
 * Two plain controllers and two timers, re-armed in place: `AbortSignal.any` and `AbortSignal.timeout` cost
 * well over 100 µs per run on Node 20, all of it on the way to the first token.
 */
export class RunStop implements StepAbort {
  readonly causes: StopCauses = { cancelled: false, timedOut: false, idle: false, unconfirmed: false };
  private readonly tools = new AbortController();
  private readonly model = new AbortController();
  private readonly hooks = new Set<() => void>();
  private readonly runTimer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | undefined;
  private paused = 0;
  private readonly onCancel = () => {
    this.causes.cancelled = true;
    this.stopAll(this.cancel.reason);
  };

  constructor(
    private readonly cancel: AbortSignal,
    runTimeoutMs: number,
    private readonly modelIdleMs: number,
  ) {
    this.runTimer = setTimeout(() => {
      this.causes.timedOut = true;
      this.stopAll(new RunTimedOut(`the run took longer than ${runTimeoutMs / 1000} s`));
    }, runTimeoutMs);
    this.runTimer.unref();
    if (cancel.aborted) this.onCancel();
    else cancel.addEventListener('abort', this.onCancel, { once: true });
  }

  get toolSignal(): AbortSignal {
    return this.tools.signal;
  }

  get signal(): AbortSignal {
    return this.model.signal;
  }

  /** Why the model was stopped for going quiet, if it was. */
  get idleReason(): Error | undefined {
    return this.causes.idle ? (this.model.signal.reason as Error) : undefined;
  }

  watch(hook: () => void): () => void {
    if (this.model.signal.aborted) {
      hook();
      return () => undefined;
    }
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /** The model just sent something (or was just asked): its silence counts from now. */
  readonly touch = (): void => {
    if (this.paused > 0 || this.model.signal.aborted) return;
    if (this.idleTimer) this.idleTimer.refresh();
    else
      this.idleTimer = setTimeout(() => {
        this.causes.idle = true;
        this.stopModel(new ModelIdle(`the model sent nothing for ${this.modelIdleMs / 1000} s`));
      }, this.modelIdleMs);
  };

  /** A tool works (or waits for the user): the model's silence does not count until every pause is resumed. */
  pause(): void {
    this.paused++;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  resume(): void {
    this.paused--;
    this.touch();
  }

  /** Nobody confirmed a side effect in time: the run stops there. */
  unconfirmed(): void {
    this.causes.unconfirmed = true;
    this.stopModel(new Unconfirmed('a confirmation was not answered in time'));
  }

  /** The run is over: no timer or listener outlives it. */
  dispose(): void {
    clearTimeout(this.runTimer);
    clearTimeout(this.idleTimer);
    this.cancel.removeEventListener('abort', this.onCancel);
    this.hooks.clear();
  }

  private stopAll(reason: unknown): void {
    this.tools.abort(reason);
    this.stopModel(reason);
  }

  private stopModel(reason: unknown): void {
    if (this.model.signal.aborted) return;
    this.model.abort(reason);
    clearTimeout(this.idleTimer);
    for (const hook of this.hooks) hook();
    this.hooks.clear();
  }
}
