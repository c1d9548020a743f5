/**
 * `@assistant/contracts/wire`: what a client needs of the API at run time — paths, methods, statuses, event
 * types, error codes — without a single zod schema, so that it loads at no cost (zod and the schemas take
 * ~60 ms of CPU). The package's main entry exports all of it too.
 */
export { API_PREFIX, servedPath, pathParams } from './lib/paths';
export { ERROR_CODES, type ErrorCode, PROBLEM_TYPE_BASE, problemType } from './lib/error-codes';
export { TERMINAL_EVENT_TYPES, isTerminalEvent } from './lib/event-types';
export { ROUTE_WIRE, QUERY_EVENT_TYPES } from './lib/wire.generated';
export { FAMILY_NAME_PATTERN } from './lib/family-name';
