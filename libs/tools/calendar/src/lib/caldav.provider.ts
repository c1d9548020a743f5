import { z } from 'zod';
import { assertHostAllowed, connectionFetch, type ProviderDefinition } from '@assistant/tool-kit';
import type { CalendarDriver } from './calendar.driver';
import { CalDavCalendar } from './caldav.driver';

const settings = z.object({
  url: z.url({ protocol: /^https?$/ }).describe('the CalDAV server, or one calendar collection on it'),
  username: z.string().min(1).describe('the user name on the CalDAV server'),
});
const secrets = z.object({ password: z.string().min(1).describe('the password, or an app password') });

export const caldavProvider: ProviderDefinition<CalendarDriver, typeof settings, typeof secrets> = {
  name: 'caldav',
  description: 'A CalDAV calendar (Nextcloud, Fastmail, iCloud, Radicale…)',
  settings,
  secrets,
  open: async ({ settings: s, secrets: k }, env) => {
    await assertHostAllowed(new URL(s.url).hostname, env);
    return CalDavCalendar.connect({
      url: s.url,
      username: s.username,
      password: k.password,
      fetch: connectionFetch(env),
    });
  },
  // Logging in and finding a calendar was the test.
  test: async () => undefined,
};
