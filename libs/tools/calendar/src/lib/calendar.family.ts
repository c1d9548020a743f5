import { defineFamily } from '@assistant/tool-kit';
import type { CalendarDriver } from './calendar.driver';
import { caldavProvider } from './caldav.provider';
import { calendarListEvents } from './tools/calendar-list-events.tool';
import { calendarCreateEvent } from './tools/calendar-create-event.tool';
import { calendarMoveEvent } from './tools/calendar-move-event.tool';
import { calendarDeleteEvent } from './tools/calendar-delete-event.tool';
import { calendarIntents } from './intents';
import { calendarAnswer, calendarFound } from './answers';

/** The user's calendar over CalDAV. Adding, moving and deleting events needs the user's yes. */
export const calendarFamily = defineFamily<CalendarDriver>({
  name: 'calendar',
  description: 'Events on a CalDAV calendar: list (recurring ones expanded), add, move, delete.',
  topic: { about: 'your calendar', keywords: ['calendar', 'agenda', 'schedule', 'meeting', 'appointment'] },
  providers: [caldavProvider],
  tools: [calendarListEvents, calendarCreateEvent, calendarMoveEvent, calendarDeleteEvent],
  intents: calendarIntents,
  answer: calendarAnswer,
  found: calendarFound,
});
