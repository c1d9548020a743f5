export { eventJson } from './lib/event-json';
export { PendingConfirmations } from './lib/pending-confirmations';
export { QueriesModule } from './lib/queries.module';
export { QueriesService } from './lib/queries.service';
export { MemoryQueryEventLog } from './lib/query-event-log';
export { type RunObserver, RUN_OBSERVER, NO_RUN_OBSERVER } from './lib/run-observer';
export { MemoryRunSlots } from './lib/run-slots';
