/**
 * Tells whether the process that runs a query is gone (SECURITY B8): a process that crashed leaves its queries'
 * live state (in Redis) as it was, and whoever reads it must know to read the database instead, and recovery to
 * end them. The hosted service keeps a short lease per process in Redis (RedisRunnerLeases).
 */
export interface RunnerLiveness {
  /**
   * True only when the runner is known to be gone (its lease lapsed); false while it lives, and whenever that
   * cannot be told (Redis unreachable): callers fall back on slower signals then (the database heartbeat).
   */
  isGone(runnerId: string): Promise<boolean>;
}

/** One process runs every query (self-hosted): a runner other than itself is never known. */
export const NO_RUNNER_LIVENESS: RunnerLiveness = { isGone: async () => false };

/** Nest's handle on the deployment's runner liveness (ClusterModule provides it). */
export const RUNNER_LIVENESS = Symbol('RUNNER_LIVENESS');
