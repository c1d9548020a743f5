import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { CalendarDriver } from '../calendar.driver';

export const calendarDeleteEvent = defineTool<CalendarDriver>()({
  name: 'calendar_delete_event',
  description:
    'Delete an event (by the id calendar_list_events gave); a recurring event is deleted with its series.',
  input: z.object({ id: z.string().min(1).max(2_000) }),
  scope: 'write:calendar',
  side_effects: true,
  annotations: { destructiveHint: true, openWorldHint: true },
  handler: async ({ id }, { driver }) => {
    await driver.delete(id);
    return { deleted: id };
  },
});
