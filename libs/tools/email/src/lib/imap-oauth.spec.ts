import { randomBytes } from 'node:crypto';
import { connect as connectTcp } from 'node:net';
// Test only: the steps at the OAuth provider fixture, shared by the specs that connect Alice there.
// eslint-disable-next-line @nx/enforce-module-boundaries
import {
  connectAliceAtFixture,
  expireAtFixture,
  OAUTH_FIXTURE_MAIL_SETTINGS,
  OAUTH_FIXTURE_URL,
  revokeAtFixture,
} from '@assistant/test-services';
import {
  authorizationRequest,
  ConnectionTestError,
  googleOAuthClient,
  NeedsReauthError,
  redeemAuthorizationCode,
  refreshingTokenSource,
  type AccessTokenSource,
  type OAuthDriverEnvironment,
} from '@assistant/tool-kit';
import { imapOAuthProvider } from './imap-oauth.provider';
import type { ImapSmtpMailbox } from './imap-smtp.driver';

/**
 * The OAuth test ground (`tools/workspace/services/oauth-fixture.sh`): the provider fixture standing in for
 * Google, and a Dovecot whose oauth2 passdb introspects the bearer (IMAP 10144, submission 10587 relaying to
 * mail.sh's OpenSMTPD), over mail.sh's mailboxes. Alice is alice@example.test at the provider.
 */
const google = {
  ...googleOAuthClient,
  authorizationEndpoint: `${OAUTH_FIXTURE_URL}/auth`,
  tokenEndpoint: `${OAUTH_FIXTURE_URL}/token`,
};
const settings = imapOAuthProvider.settings.parse({
  ...googleOAuthClient.speaks
    .find((p) => p.provider === 'imap-oauth')!
    .settings({ email: 'alice@example.test' }),
  ...OAUTH_FIXTURE_MAIL_SETTINGS,
});
const run = randomBytes(4).toString('hex');
const signal = new AbortController().signal;

/** Alice connects Google: a client of this run's own, her consent, the code redeemed. */
const connectAlice = () =>
  connectAliceAtFixture({ authorizationRequest, redeemAuthorizationCode, refreshingTokenSource }, google);

const opened: ImapSmtpMailbox[] = [];
async function open(tokens: AccessTokenSource): Promise<ImapSmtpMailbox> {
  const env: OAuthDriverEnvironment = {
    deployment: 'self-hosted',
    allowPrivateHosts: [],
    localFolders: [],
    signal,
    accessTokens: tokens,
  };
  const mailbox = (await imapOAuthProvider.open({ settings, secrets: {} }, env)) as ImapSmtpMailbox;
  opened.push(mailbox);
  return mailbox;
}
afterAll(async () => {
  await Promise.all(opened.map((mailbox) => mailbox.close()));
});

/** Polls the INBOX for a subject: delivery goes through OpenSMTPD and LMTP. */
async function arrived(mailbox: ImapSmtpMailbox, subject: string) {
  for (let i = 0; i < 50; i++) {
    const found = await mailbox.search({ folder: 'INBOX', subject, limit: 5 }, signal);
    if (found.length > 0) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return [];
}

describe('a mailbox signed in with OAuth (Dovecot checking the token by introspection)', () => {
  it('logs in to IMAP and sends over SMTP submission with the access token', async () => {
    const { tokens, refreshed } = await connectAlice();
    const mailbox = await open(tokens);
    await expect(imapOAuthProvider.test(mailbox, signal)).resolves.toBeUndefined();
    const subject = `Sent with a token ${run}`;
    await mailbox.send({ to: ['alice@example.test'], subject, body: 'Over XOAUTH2.' });
    expect(await arrived(mailbox, subject)).toEqual([expect.objectContaining({ subject })]);
    expect(refreshed).toEqual([]);
  });

  it('is refused with a token the provider does not know, in the server’s words', async () => {
    const dead: AccessTokenSource = { accessToken: async () => 'not-a-token-of-the-provider' };
    const mailbox = await open(dead);
    const refused = await imapOAuthProvider.test(mailbox, signal).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConnectionTestError);
    expect((refused as Error).message).toMatch(
      /^IMAP login to 127\.0\.0\.1 failed: .*authentication failure/i,
    );
    expect((refused as Error).message).not.toContain('not-a-token-of-the-provider');
  });

  it('gets a new access token when the server refuses an expired one, for IMAP and SMTP alike', async () => {
    const { client, tokens, refreshed } = await connectAlice();
    await expireAtFixture(client.clientId);
    const mailbox = await open(tokens);
    await expect(imapOAuthProvider.test(mailbox, signal)).resolves.toBeUndefined();
    expect(refreshed).toHaveLength(1);
    await expireAtFixture(client.clientId);
    const subject = `Sent after a refresh ${run}`;
    await mailbox.send({ to: ['alice@example.test'], subject, body: 'The old token had expired.' });
    expect(refreshed).toHaveLength(2);
    expect(await arrived(mailbox, subject)).toHaveLength(1);
  });

  it('also takes the token by IMAP AUTHENTICATE XOAUTH2 (all Outlook offers), and refuses it by XOAUTH2 once revoked', async () => {
    const { client, tokens } = await connectAlice();
    const token = await tokens.accessToken();
    const xoauth2 = (bearer: string) =>
      Buffer.from(`user=alice@example.test\x01auth=Bearer ${bearer}\x01\x01`).toString('base64');
    /** One AUTHENTICATE XOAUTH2 over a raw IMAP connection: the tagged answer's first word. */
    const authenticate = (bearer: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connectTcp(10144, '127.0.0.1');
        socket.setTimeout(5_000, () => {
          socket.destroy();
          reject(new Error('the IMAP server did not answer AUTHENTICATE XOAUTH2'));
        });
        socket.on('error', reject);
        let pending = '';
        socket.on('data', (chunk) => {
          pending += chunk.toString();
          const lines = pending.split('\r\n');
          pending = lines.pop() ?? '';
          for (const line of lines) {
            if (line.startsWith('* OK')) socket.write(`A1 AUTHENTICATE XOAUTH2 ${xoauth2(bearer)}\r\n`);
            // XOAUTH2's error challenge: an empty answer ends the exchange.
            else if (line.startsWith('+ ')) socket.write('\r\n');
            else if (/^A1 (OK|NO|BAD)/.test(line)) {
              socket.end('A2 LOGOUT\r\n');
              resolve(line.split(' ')[1]);
            }
          }
        });
      });
    await expect(authenticate(token)).resolves.toBe('OK');
    await revokeAtFixture(client.clientId);
    await expect(authenticate(token)).resolves.toBe('NO');
  });

  it('says needs_reauth when the grant was revoked at the provider', async () => {
    const { client, tokens } = await connectAlice();
    await revokeAtFixture(client.clientId);
    const mailbox = await open(tokens);
    const refused = await imapOAuthProvider.test(mailbox, signal).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NeedsReauthError);
    expect(refused).toMatchObject({ code: 'needs_reauth' });
  });
});
