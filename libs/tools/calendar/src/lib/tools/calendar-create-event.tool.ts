import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { CalendarDriver } from '../calendar.driver';

export const calendarCreateEvent = defineTool<CalendarDriver>()({
  name: 'calendar_create_event',
  description: 'Add an event to the user’s calendar (an hour long unless `end` is given).',
  input: z.object({
    title: z.string().trim().min(1).max(300),
    start: z.iso.datetime({ offset: true }),
    end: z.iso.datetime({ offset: true }).optional(),
    location: z.string().trim().max(300).optional(),
    description: z.string().max(5_000).optional(),
  }),
  scope: 'write:calendar',
  side_effects: true,
  annotations: { destructiveHint: false, openWorldHint: true },
  handler: async ({ title, start, end, location, description }, { driver, timeZone }) => {
    const from = new Date(start);
    const to = end ? new Date(end) : new Date(from.getTime() + 3_600_000);
    if (to <= from) throw new Error('the end must come after the start');
    return driver.create({ title, start: from, end: to, location, description }, timeZone);
  },
});
