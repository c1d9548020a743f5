import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { CalendarDriver } from '../calendar.driver';

export const calendarMoveEvent = defineTool<CalendarDriver>()({
  name: 'calendar_move_event',
  description:
    'Move an event (by the id calendar_list_events gave) to a new start, keeping its length unless `end` is given.',
  input: z.object({
    id: z.string().min(1).max(2_000),
    start: z.iso.datetime({ offset: true }),
    end: z.iso.datetime({ offset: true }).optional(),
  }),
  scope: 'write:calendar',
  side_effects: true,
  annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ id, start, end }, { driver, timeZone }) =>
    driver.move(id, new Date(start), end ? new Date(end) : undefined, timeZone),
});
