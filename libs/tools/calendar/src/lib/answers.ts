import { joinAnd } from '@assistant/tool-kit';
import type { CalendarEvent } from './calendar.driver';
import { titleMatches } from './intents';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "Friday 4 December", from the date an ISO string (with offset) names in its own zone. */
function dayLabel(iso: string): string {
  const [year, month, day] = iso.slice(0, 10).split('-').map(Number);
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return `${WEEKDAYS[weekday]} ${day} ${MONTHS[month - 1]}`;
}

/** "13:00" from an ISO string with offset: the wall-clock time it names. */
const clock = (iso: string) => iso.slice(11, 16);

function when(event: CalendarEvent): string {
  return event.all_day ? 'all day' : `${clock(event.start)}–${clock(event.end)}`;
}

/** What the built-in model says once a calendar tool has answered. */
export function calendarAnswer(tool: string, output: unknown, focus?: string): string {
  switch (tool) {
    case 'calendar_list_events': {
      const { from, events } = output as { from: string; events: CalendarEvent[] };
      if (focus) {
        const matching = events.filter((e) => titleMatches(e.title, focus));
        if (matching.length === 0) return `Nothing called “${focus}” on your calendar in the coming year.`;
        const [next, ...later] = matching;
        const more = later.length ? ` Then ${joinAnd(later.slice(0, 3).map((e) => dayLabel(e.start)))}.` : '';
        return `“${next.title}” is on ${dayLabel(next.start)}, ${when(next)}.${more}`;
      }
      if (events.length === 0) return `Nothing on your calendar on ${dayLabel(from)}.`;
      const days = new Set(events.map((e) => e.start.slice(0, 10)));
      if (days.size > 1) {
        const listed = events.map((e) => `${dayLabel(e.start)} ${when(e)} ${e.title}`);
        return `You have: ${joinAnd(listed)}.`;
      }
      const listed = events.map((e) => `${when(e)} ${e.title}${e.location ? ` (${e.location})` : ''}`);
      return `On ${dayLabel(from)} you have: ${joinAnd(listed)}.`;
    }
    case 'calendar_create_event': {
      const event = output as CalendarEvent;
      return `Added “${event.title}” on ${dayLabel(event.start)}, ${when(event)}.`;
    }
    case 'calendar_move_event': {
      const event = output as CalendarEvent;
      return `Moved “${event.title}” to ${dayLabel(event.start)}, ${when(event)}.`;
    }
    case 'calendar_delete_event':
      return 'I deleted the event.';
    default:
      return `Done (${tool}).`;
  }
}

/** Whether a list of events holds the one asked about (any event, when nothing was named). */
export function calendarFound(tool: string, output: unknown, focus?: string): boolean {
  const events = (output as { events?: CalendarEvent[] }).events;
  if (!Array.isArray(events)) return true;
  return focus ? events.some((e) => titleMatches(e.title, focus)) : events.length > 0;
}
