import { z } from 'zod';
import {
  accessTokensOf,
  assertHostAllowed,
  ConnectionTestError,
  connectionFetch,
  NeedsReauthError,
  type ProviderDefinition,
} from '@assistant/tool-kit';
import { bearerFetch } from './bearer-fetch';
import type { CalendarDriver } from './calendar.driver';
import { GraphCalendar } from './graph.driver';

const settings = z.object({
  base_url: z
    .url({ protocol: /^https?$/ })
    .default('https://graph.microsoft.com/v1.0')
    .describe('Microsoft Graph, v1.0'),
});
/** No secret of its own: the server holds the connection's OAuth grant and gives the driver its token source. */
const secrets = z.object({});

/** The calendar of a Microsoft account through Microsoft Graph. Made by "Connect Microsoft", never by a form. */
export const graphProvider: ProviderDefinition<CalendarDriver, typeof settings, typeof secrets> = {
  name: 'graph',
  description: 'An Outlook or Microsoft 365 calendar, through Microsoft Graph',
  settings,
  secrets,
  open: async ({ settings: s }, env) => {
    const accessTokens = accessTokensOf(env);
    await assertHostAllowed(new URL(s.base_url).hostname, env);
    return new GraphCalendar(s.base_url.replace(/\/+$/, ''), bearerFetch(accessTokens, connectionFetch(env)));
  },
  test: async (driver) =>
    (driver as GraphCalendar).check().catch((error: Error) => {
      if (error instanceof NeedsReauthError) throw error;
      throw new ConnectionTestError(error.message);
    }),
};
