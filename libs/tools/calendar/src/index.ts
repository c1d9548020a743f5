export { calendarFamily } from './lib/calendar.family';
export type { CalendarDriver } from './lib/calendar.driver';
