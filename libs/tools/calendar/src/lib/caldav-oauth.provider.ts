import { z } from 'zod';
import {
  accessTokensOf,
  assertHostAllowed,
  connectionFetch,
  type ProviderDefinition,
} from '@assistant/tool-kit';
import type { CalendarDriver } from './calendar.driver';
import { CalDavCalendar } from './caldav.driver';

const settings = z.object({
  url: z
    .url({ protocol: /^https?$/ })
    .describe('the CalDAV calendar collection (Google: …/caldav/v2/<email>/events/)'),
});
/** No secret of its own: the server holds the connection's OAuth grant and gives the driver its token source. */
const secrets = z.object({});

/**
 * A CalDAV calendar reached with an OAuth bearer token: Google Calendar, which has no password access (see
 * docs/decisions/0010-google-calendar-over-caldav.md). Made by "Connect Google", never by a form.
 */
export const caldavOAuthProvider: ProviderDefinition<CalendarDriver, typeof settings, typeof secrets> = {
  name: 'caldav-oauth',
  description: 'A CalDAV calendar signed in with OAuth (Google Calendar)',
  settings,
  secrets,
  open: async ({ settings: s }, env) => {
    const accessTokens = accessTokensOf(env);
    await assertHostAllowed(new URL(s.url).hostname, env);
    return CalDavCalendar.connect({ url: s.url, accessTokens, fetch: connectionFetch(env) });
  },
  // Logging in and finding the calendar was the test.
  test: async () => undefined,
};
