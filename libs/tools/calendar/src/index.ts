export { calendarFamily } from './lib/calendar.family';
export type { CalendarDriver } from './lib/calendar.driver';
export { caldavOAuthProvider } from './lib/caldav-oauth.provider';
export { graphProvider } from './lib/graph.provider';
