export const QUERY_EVENT_LOG = Symbol('QUERY_EVENT_LOG');
