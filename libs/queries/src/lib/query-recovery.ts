import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { isTerminalEvent, type QueryEvent, type QueryEventBody } from '@assistant/contracts';
import { queryCreated } from '@assistant/agent-core';
import type { StoredQuery, QueriesRepository } from '@assistant/storage';
import {
  SERVER_CONFIG,
  InjectRepository,
  type ServerConfig,
  RUNNER_LIVENESS,
  endStatusOf,
  type QueryEventLog,
  type RunnerLiveness,
} from '@assistant/server-kit';
import { QUERY_LIVE_EVENT_LOG, QUERY_RUNNER_ID } from './query-event-log.provider';
import { interruptedCalls } from './interrupted-calls';

/** How often a hosted process renews the heartbeat of its runs, and looks for orphans. */
const HEARTBEAT_MS = 5_000;
/** A run whose heartbeat is this old lost its process (a dozen heartbeats missed), whatever else is known. */
const ORPHANED_AFTER_MS = 60_000;
/**
 * A run whose heartbeat is this old, and whose process's lease has lapsed (RunnerLiveness), lost its process:
 * the two signals agree, so that neither a database hiccup nor a Redis outage alone ends a live run. (Processes
 * that heartbeat every 10 s, as before, stay well within it.)
 */
const LAPSED_ORPHANED_AFTER_MS = 20_000;
/** How long finished queries keep every event; then only the terminal one (SPEC §4 asks for 15 minutes). */
const EVENTS_KEPT_MS = 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
/** How long a stopped process's heartbeat row is kept (it vouches for nothing after a minute; it is harmless). */
const RUNNERS_KEPT_MS = 24 * 3_600_000;

/**
 * Ends the runs that a stopped or crashed process left unfinished, where every reader looks (SECURITY B8): each
 * gets its `query.created` if none of its events were kept, a `tool_call.completed` for every call it left open
 * (as a cancel tells them) and `query.incomplete` with reason `interrupted` after its last event, and its status
 * and end time (SPEC §4), in the database and in the live log, so that it is never "running" or
 * "awaiting_confirmation" forever anywhere. Which runs are orphans:
 *
 * - self-hosted: all unfinished ones, at start-up. One process serves an installation (the data-directory
 *   lock), so nothing else can be running them.
 * - hosted: several processes share the database, so a process never takes another's runs at start-up. Each
 *   renews its heartbeat every 5 s (one row per process, not a write to each of its runs); a run whose process
 *   has had none for 20 s and whose lease in Redis has lapsed, or none for 60 s, is an orphan (a run younger than
 *   that is not, whatever its process), found by any process's sweep (at start-up and every 5 s) and claimed by
 *   exactly one of them.
 *
 * Also trims old queries down to their terminal event, so that token-by-token events do not pile up.
 */
@Injectable()
export class QueryRecovery implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('QueryRecovery');
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly chores = new Set<Promise<void>>();

  constructor(
    @InjectRepository('queries') private readonly queries: QueriesRepository,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(QUERY_RUNNER_ID) private readonly runnerId: string,
    @Inject(QUERY_LIVE_EVENT_LOG) private readonly live: QueryEventLog,
    @Inject(RUNNER_LIVENESS) private readonly runners: RunnerLiveness,
  ) {}

  /** Runs before the server listens: nobody sees an orphan as running. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.deployment === 'self-hosted') {
      await this.endOrphans(new Date());
    } else {
      await this.heartbeat();
      await this.sweep();
      this.every(HEARTBEAT_MS, () => this.heartbeat());
      this.every(HEARTBEAT_MS, () => this.sweep());
    }
    await this.prune();
    this.every(PRUNE_EVERY_MS, () => this.prune());
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await Promise.allSettled(this.chores);
  }

  /** Tells the other processes that this one lives: one row, whatever the number of its runs. */
  private heartbeat(): Promise<void> {
    return this.queries.heartbeat(this.runnerId, new Date());
  }

  /** The hosted sweep: the runs of processes whose lease lapsed, and those without a heartbeat for long. */
  private async sweep(): Promise<void> {
    await this.endOrphans(new Date(Date.now() - LAPSED_ORPHANED_AFTER_MS), (runnerId) =>
      this.runners.isGone(runnerId),
    );
    await this.endOrphans(new Date(Date.now() - ORPHANED_AFTER_MS));
  }

  /**
   * Ends every unfinished query whose heartbeat is older than `staleBefore` (and, given `runnerGone`, whose
   * runner it says is gone).
   */
  async endOrphans(staleBefore: Date, runnerGone?: (runnerId: string) => Promise<boolean>): Promise<void> {
    const queries = this.queries;
    const gone = new Map<string, Promise<boolean>>();
    let ended = 0;
    for (const orphan of await queries.orphans(staleBefore)) {
      if (runnerGone) {
        let lapsed = gone.get(orphan.runnerId);
        if (!lapsed) gone.set(orphan.runnerId, (lapsed = runnerGone(orphan.runnerId)));
        if (!(await lapsed)) continue;
      }
      if (!(await queries.claim(orphan.id, staleBefore, new Date()))) continue;
      await this.end(orphan);
      ended++;
    }
    if (ended > 0)
      this.logger.warn({ count: ended, msg: 'ended queries that a stopped process left running' });
  }

  /**
   * Ends one orphan: first, whatever of it the live log holds beyond the database (its runner wrote there
   * first, the database a moment later) is stored; then, unless its terminal event is among its events already
   * (its process died before storing the status), the calls it left open and `query.incomplete` are appended;
   * its status goes with the last of them. Then the live log gets the same end (or drops a copy it cannot
   * complete), so that its readers, and the streams that follow it, see the query end.
   */
  private async end(orphan: StoredQuery): Promise<void> {
    const queries = this.queries;
    const queryId = orphan.id;
    const stored = await queries.events(queryId, 0);
    const known = stored.at(-1)?.sequence_number ?? 0;
    const ahead = contiguousAfter(known, await this.liveEventsAfter(queryId, known));
    const events = [...stored, ...ahead];
    let terminal = events.at(-1);
    const closing: QueryEvent[] = [];
    if (!terminal || !isTerminalEvent(terminal)) {
      let next = terminal?.sequence_number ?? 0;
      for (const body of [
        // Nothing of it kept (its text is written with its end, its process died first): it starts as it did.
        ...(events.length === 0 ? [createdEventOf(orphan)] : []),
        ...interruptedCalls(events),
        { type: 'query.incomplete', reason: 'interrupted' } as const,
      ]) {
        closing.push({ ...body, sequence_number: ++next } as QueryEvent);
      }
      terminal = closing.at(-1) as QueryEvent;
    }
    const endedAt = new Date();
    await queries.appendEvents(
      [...ahead, ...closing].map((event) => ({ queryId, event })),
      [{ queryId, status: endStatusOf(terminal), endedAt }],
    );
    // The live log gets what it may lack: everything after what the database had (the terminal event alone, if
    // the database had that too).
    const tail = ahead.length + closing.length > 0 ? [...ahead, ...closing] : [terminal];
    await this.live
      .endRecovered(queryId, tail[0].sequence_number - 1, tail, endedAt)
      .catch((error: unknown) =>
        this.logger.error({
          err: error,
          query_id: queryId,
          msg: 'could not end a lost query in the live log',
        }),
      );
  }

  /** The live log's events after `after`; none when it cannot be read (its readers then read the database). */
  private async liveEventsAfter(queryId: string, after: number): Promise<readonly QueryEvent[]> {
    try {
      return await this.live.events(queryId, after);
    } catch (error) {
      this.logger.error({
        err: error,
        query_id: queryId,
        msg: 'could not read a lost query in the live log',
      });
      return [];
    }
  }

  private async prune(): Promise<void> {
    await this.queries.pruneEvents(new Date(Date.now() - EVENTS_KEPT_MS));
    await this.queries.forgetRunners(new Date(Date.now() - RUNNERS_KEPT_MS));
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

/** The `query.created` its run sent first, from its record. */
function createdEventOf(query: StoredQuery): QueryEventBody {
  return queryCreated({
    queryId: query.id,
    discussionId: query.discussionId,
    messageId: query.messageId,
    modelName: query.model,
  });
}

/** The events that follow `after` without a gap, up to the first terminal one. */
function contiguousAfter(after: number, events: readonly QueryEvent[]): QueryEvent[] {
  const run: QueryEvent[] = [];
  for (const event of events) {
    if (event.sequence_number !== after + run.length + 1) break;
    run.push(event);
    if (isTerminalEvent(event)) break;
  }
  return run;
}
