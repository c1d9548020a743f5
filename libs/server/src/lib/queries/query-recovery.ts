import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { isTerminalEvent, type QueryEvent } from '@assistant/contracts';
import type { Storage } from '@assistant/storage';
import { SERVER_CONFIG, STORAGE } from '../core.module';
import type { ServerConfig } from '../config/server-config';
import { QUERY_RUNNER_ID } from './query-event-log.provider';
import { endStatusOf } from './query-event-log';

/** How often a hosted process renews the heartbeat of its runs and looks for orphans. */
const HEARTBEAT_MS = 10_000;
/** A run whose heartbeat is this old lost its process (six heartbeats missed). */
const ORPHANED_AFTER_MS = 60_000;
/** How long finished queries keep every event; then only the terminal one (SPEC §4 asks for 15 minutes). */
const EVENTS_KEPT_MS = 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Ends the runs that a stopped or crashed process left unfinished: each gets `query.incomplete` with reason
 * `interrupted` after its last stored event, and its status and end time (SPEC §4), so that it is never
 * "running" forever. Which runs are orphans:
 *
 * - self-hosted: all unfinished ones, at start-up. One process serves an installation (the data-directory
 *   lock), so nothing else can be running them.
 * - hosted: several processes share the database, so a process never takes another's runs at start-up. Each
 *   renews the heartbeat of its own runs every 10 s; a run without one for 60 s is an orphan, found by any
 *   process's sweep (at start-up and with every heartbeat) and claimed by exactly one of them.
 *
 * Also trims old queries down to their terminal event, so that token-by-token events do not pile up.
 */
@Injectable()
export class QueryRecovery implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('QueryRecovery');
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly chores = new Set<Promise<void>>();

  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(QUERY_RUNNER_ID) private readonly runnerId: string,
  ) {}

  /** Runs before the server listens: nobody sees an orphan as running. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.deployment === 'self-hosted') {
      await this.endOrphans(new Date());
    } else {
      await this.endOrphans(new Date(Date.now() - ORPHANED_AFTER_MS));
      this.every(HEARTBEAT_MS, async () => {
        await this.storage.queries.heartbeat(this.runnerId, new Date());
        await this.endOrphans(new Date(Date.now() - ORPHANED_AFTER_MS));
      });
    }
    await this.prune();
    this.every(PRUNE_EVERY_MS, () => this.prune());
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await Promise.allSettled(this.chores);
  }

  /** Ends every unfinished query whose heartbeat is older than `staleBefore`. */
  async endOrphans(staleBefore: Date): Promise<void> {
    const queries = this.storage.queries;
    let ended = 0;
    for (const orphan of await queries.orphans(staleBefore)) {
      if (!(await queries.claim(orphan.id, staleBefore, new Date()))) continue;
      // A process that died between storing a terminal event and the status it ends in: only the status is missing.
      const [last] = orphan.lastEventId > 0 ? await queries.events(orphan.id, orphan.lastEventId - 1) : [];
      let terminal: QueryEvent | undefined = last && isTerminalEvent(last) ? last : undefined;
      if (!terminal) {
        terminal = {
          type: 'query.incomplete',
          reason: 'interrupted',
          sequence_number: orphan.lastEventId + 1,
        };
        await queries.appendEvents([{ queryId: orphan.id, event: terminal }]);
      }
      await queries.end(orphan.id, endStatusOf(terminal), new Date());
      ended++;
    }
    if (ended > 0)
      this.logger.warn({ count: ended, msg: 'ended queries that a stopped process left running' });
  }

  private prune(): Promise<void> {
    return this.storage.queries.pruneEvents(new Date(Date.now() - EVENTS_KEPT_MS));
  }

  /** A chore on a timer: never two at once, failures logged, awaited at shutdown. */
  private every(ms: number, chore: () => Promise<void>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      const run = chore()
        .catch((error: unknown) => this.logger.error({ err: error, msg: 'query housekeeping failed' }))
        .finally(() => {
          busy = false;
          this.chores.delete(run);
        });
      this.chores.add(run);
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
