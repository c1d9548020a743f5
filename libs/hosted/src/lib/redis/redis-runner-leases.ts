import type { RunnerLiveness } from '@assistant/server-kit';
import type { RedisConnections } from './redis-connections';

/** How long a process's lease lasts unless renewed: how soon every instance knows a crashed one is gone. */
export const LEASE_MS = 10_000;
/** How often a process renews its lease: three chances before it lapses. */
const RENEW_MS = 3_000;

/**
 * Each hosted process holds a lease in Redis (a key with a short TTL) while it lives, and renews it every few
 * seconds: another instance that reads one of its queries, or looks for orphans, knows it is gone once its lease
 * has lapsed (SECURITY B8), without waiting for the database heartbeat.
 *
 * A lease missing because Redis lost it (a restart) is renewed within RENEW_MS of the connection being back;
 * meanwhile readers read the database, which is never wrong, only a moment behind; recovery also wants the
 * database heartbeat to have stopped (QueryRecovery), so that a Redis outage alone ends no run.
 */
export class RedisRunnerLeases implements RunnerLiveness {
  private timer: NodeJS.Timeout | undefined;
  /** Whether the last renewal failed, so that an outage is logged once, not every few seconds. */
  private failing = false;
  private readonly renewNow = () => this.renew();

  constructor(
    private readonly redis: RedisConnections,
    /** This process's runner id (QueryEventLog.runnerId). */
    readonly runnerId: string,
    private readonly onError: (error: unknown, what: string) => void,
  ) {}

  /** Takes the lease, renews it from now on, and at once whenever the connection is back. */
  start(): void {
    this.renew();
    this.timer = setInterval(this.renewNow, RENEW_MS);
    this.timer.unref();
    this.redis.command.on('ready', this.renewNow);
  }

  /** Gives the lease up: this process runs nothing any more (its runs were drained). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.redis.command.off('ready', this.renewNow);
    await this.redis.command.del(this.key(this.runnerId)).catch(() => undefined);
  }

  async isGone(runnerId: string): Promise<boolean> {
    if (runnerId === this.runnerId) return false;
    try {
      return (await this.redis.command.exists(this.key(runnerId))) === 0;
    } catch {
      // Redis cannot tell now: not known to be gone.
      return false;
    }
  }

  private renew(): void {
    this.redis.command
      .set(this.key(this.runnerId), '1', 'PX', LEASE_MS)
      .then(() => (this.failing = false))
      .catch((error: unknown) => {
        if (!this.failing) this.onError(error, 'could not renew this process’s lease in Redis');
        this.failing = true;
      });
  }

  private key(runnerId: string): string {
    return this.redis.key('runner', runnerId);
  }
}
