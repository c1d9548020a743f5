import { ImapFlow } from 'imapflow';

/**
 * The machine's mail (tools/workspace/services/mail.sh): OpenSMTPD on 127.0.0.1:10025 delivers example.test mail
 * into Dovecot, read here over IMAP (127.0.0.1:10143) as alice or bob (password `secret`).
 */
export const MAIL_SERVER = { smtpUrl: 'smtp://127.0.0.1:10025', imapPort: 10143 } as const;

/** The text of every message in `user`'s inbox whose body holds `marker`, quoted-printable undone. */
export async function mailsHolding(user: 'alice' | 'bob', marker: string): Promise<string[]> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: MAIL_SERVER.imapPort,
    secure: false,
    auth: { user, pass: 'secret' },
    logger: false,
  });
  await client.connect();
  try {
    const lock = await client.getMailboxLock('INBOX');
    try {
      const texts: string[] = [];
      for (const uid of (await client.search({ body: marker }, { uid: true })) || []) {
        const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
        const source = message ? message.source : undefined;
        if (!source) continue;
        texts.push(
          source
            .toString('utf8')
            .replace(/=\r?\n/g, '')
            .replace(/=([0-9A-F]{2})/g, (_: string, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        );
      }
      return texts;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
}

/** Waits until `user` has a mail holding `marker` and returns the first match of `pattern` in it. */
export async function waitForMailMatch(
  user: 'alice' | 'bob',
  marker: string,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const text of await mailsHolding(user, marker)) {
      const match = pattern.exec(text)?.[0];
      if (match) return match;
    }
    if (Date.now() > deadline) throw new Error(`no mail for ${user} holding ${marker} matched ${pattern}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
