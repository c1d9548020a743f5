import { defineOAuthClient } from './oauth-client';

/**
 * Google: Gmail over IMAP and SMTP with XOAUTH2, Google Calendar over CalDAV with the same bearer token (see
 * docs/decisions/0010-google-calendar-over-caldav.md). `access_type=offline` and `prompt=consent` make Google send
 * a refresh token at every consent, not only the first.
 */
export const googleOAuthClient = defineOAuthClient({
  name: 'google',
  title: 'Google',
  authorizationEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenEndpoint: 'https://oauth2.googleapis.com/token',
  revocationEndpoint: 'https://oauth2.googleapis.com/revoke',
  scopes: ['openid', 'email', 'https://mail.google.com/', 'https://www.googleapis.com/auth/calendar'],
  authorizationParams: { access_type: 'offline', prompt: 'consent' },
  speaks: [
    {
      family: 'email',
      provider: 'imap-oauth',
      scopes: ['https://mail.google.com/'],
      settings: ({ email }) => ({
        imap_host: 'imap.gmail.com',
        imap_port: 993,
        imap_tls: true,
        smtp_host: 'smtp.gmail.com',
        smtp_port: 465,
        smtp_tls: true,
        username: email,
        from_address: email,
      }),
    },
    {
      family: 'calendar',
      provider: 'caldav-oauth',
      scopes: ['https://www.googleapis.com/auth/calendar'],
      settings: ({ email }) => ({
        url: `https://apidata.googleusercontent.com/caldav/v2/${encodeURIComponent(email)}/events/`,
      }),
    },
  ],
});

/**
 * Microsoft (Outlook.com, Microsoft 365): mail over IMAP and SMTP with XOAUTH2, the calendar through Microsoft
 * Graph. Its v2 endpoint gives an access token per resource (Outlook's, Graph's), so each protocol redeems the
 * refresh token with its own scopes; it has no revocation endpoint (the person removes the app at
 * https://account.live.com/consent/Manage or in their organisation).
 */
export const microsoftOAuthClient = defineOAuthClient({
  name: 'microsoft',
  title: 'Microsoft',
  authorizationEndpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
  tokenEndpoint: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
  scopes: [
    'openid',
    'email',
    'offline_access',
    'https://outlook.office.com/IMAP.AccessAsUser.All',
    'https://outlook.office.com/SMTP.Send',
    'Calendars.ReadWrite',
  ],
  tokensPerResource: true,
  speaks: [
    {
      family: 'email',
      provider: 'imap-oauth',
      scopes: ['https://outlook.office.com/IMAP.AccessAsUser.All', 'https://outlook.office.com/SMTP.Send'],
      settings: ({ email }) => ({
        imap_host: 'outlook.office365.com',
        imap_port: 993,
        imap_tls: true,
        smtp_host: 'smtp.office365.com',
        smtp_port: 587,
        smtp_tls: true,
        username: email,
        from_address: email,
      }),
    },
    {
      family: 'calendar',
      provider: 'graph',
      scopes: ['Calendars.ReadWrite'],
      settings: () => ({ base_url: 'https://graph.microsoft.com/v1.0' }),
    },
  ],
});
