import { NotReady, type ReadinessCheck } from '@assistant/server-kit';
/**
 * (Not @nestjs/terminus, which ARCHITECTURE.md lists: its answers have a shape of their own where ours are the
 * contract's — a declared 200 body, problem+json otherwise — and a named check with a timeout is all we need.)
 *
 * What `/readyz` asks before it says a process may take traffic. Each part of a deployment that the API cannot
 * serve without (the database, its schema, Redis on the hosted service) registers a named check; a check
 * rejects, or takes longer than CHECK_TIMEOUT_MS, when its part is not ready.
 */
/** A check that does not answer in this time counts as failed: a probe must not hang on a stuck dependency. */
export const CHECK_TIMEOUT_MS = 2_000;

export interface ReadinessVerdict {
  passed: string[];
  /** Each failed check with a reason fit for anonymous callers (no addresses, no driver messages). */
  failed: { name: string; reason: string; error?: unknown }[];
}

/** The process's readiness checks, and whether it is draining (then it is not ready, whatever they say). */
export class Readiness {
  private readonly checks: ReadinessCheck[] = [];
  private draining = false;

  constructor(checks: readonly ReadinessCheck[] = []) {
    checks.forEach((check) => this.add(check));
  }

  add(check: ReadinessCheck): void {
    if (this.checks.some((known) => known.name === check.name)) {
      throw new Error(`a readiness check named ${check.name} is registered already`);
    }
    this.checks.push(check);
  }

  /** From now on the process reports not ready, so that load balancers send new work elsewhere. */
  markDraining(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Runs every check at once. */
  async evaluate(timeoutMs = CHECK_TIMEOUT_MS): Promise<ReadinessVerdict> {
    const verdict: ReadinessVerdict = { passed: [], failed: [] };
    if (this.draining) verdict.failed.push({ name: 'shutdown', reason: 'the server is shutting down' });
    const results = await Promise.all(this.checks.map((check) => settle(check, timeoutMs)));
    this.checks.forEach((check, i) => {
      const result = results[i];
      if (result === 'ok') verdict.passed.push(check.name);
      else verdict.failed.push({ name: check.name, ...result });
    });
    return verdict;
  }
}

async function settle(
  check: ReadinessCheck,
  timeoutMs: number,
): Promise<'ok' | { reason: string; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ reason: string }>((resolve) => {
    timer = setTimeout(() => resolve({ reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([
      check.check().then(
        () => 'ok' as const,
        (error: unknown) =>
          error instanceof NotReady ? { reason: error.message } : { reason: 'failed', error },
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The database answers a trivial query. */
export function databaseCheck(storage: { ping(): Promise<void> }): ReadinessCheck {
  return { name: 'database', check: () => storage.ping() };
}

/** The database has every migration this code expects (an older schema would fail requests at random). */
export function migrationsCheck(storage: { schemaIsCurrent(): Promise<boolean> }): ReadinessCheck {
  return {
    name: 'migrations',
    check: async () => {
      if (!(await storage.schemaIsCurrent()))
        throw new NotReady('migrations are pending: run the migrate command');
    },
  };
}
