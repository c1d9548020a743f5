import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { CalendarDriver } from '../calendar.driver';
import { dayRange } from '@assistant/tool-kit';

const MAX_DAYS = 92;

export const calendarListEvents = defineTool<CalendarDriver>()({
  name: 'calendar_list_events',
  description:
    "The user's events between two times (ISO 8601), recurring ones expanded, in the user's time zone. Without `to`, one day from `from`.",
  input: z.object({
    from: z.iso.datetime({ offset: true }).describe('start, e.g. 2026-12-04T00:00:00+01:00'),
    to: z.iso.datetime({ offset: true }).optional(),
  }),
  scope: 'read:calendar',
  handler: async ({ from, to }, { driver, timeZone }) => {
    const start = new Date(from);
    const end = to ? new Date(to) : dayRange(start, timeZone, 1).start;
    if (end <= start) throw new Error('`to` must come after `from`');
    if (end.getTime() - start.getTime() > MAX_DAYS * 86_400_000)
      throw new Error(`at most ${MAX_DAYS} days at once`);
    return {
      from,
      to: end.toISOString(),
      time_zone: timeZone,
      events: await driver.events(start, end, timeZone),
    };
  },
});
