import { Logger, type Provider } from '@nestjs/common';
import type { Storage } from '@assistant/storage';
import { STORAGE, type QueryEventLog } from '@assistant/server-kit';
import { DurableQueryEventLog } from './durable-query-event-log';

/** Nest's handle on the query event log that the queries module reads and writes. */
export const QUERY_EVENT_LOG = Symbol('QUERY_EVENT_LOG');
/** The deployment's live log itself, under the database: what recovery reads of, and writes to, a lost run. */
export const QUERY_LIVE_EVENT_LOG = Symbol('QUERY_LIVE_EVENT_LOG');
/** This process's id on the queries it runs (see QueryRecovery): the live log's. */
export const QUERY_RUNNER_ID = Symbol('QUERY_RUNNER_ID');

/** The deployment's live log, written behind to the database. */
export function queryEventLogProviders(live: QueryEventLog): Provider[] {
  const logger = new Logger('QueryEventLog');
  return [
    { provide: QUERY_LIVE_EVENT_LOG, useValue: live },
    { provide: QUERY_RUNNER_ID, useValue: live.runnerId },
    {
      provide: QUERY_EVENT_LOG,
      inject: [STORAGE],
      useFactory: (storage: Storage) =>
        new DurableQueryEventLog(live, storage.queries, {
          onError: (error, what) => logger.error({ err: error, msg: what }),
        }),
    },
  ];
}
