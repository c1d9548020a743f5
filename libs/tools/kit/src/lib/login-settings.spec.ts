import { z } from 'zod';
import { loginChanges, loginNeutral } from './login-settings';

/** Settings shaped like a mailbox's: where and as whom it logs in, and one setting that is neither. */
const settings = z.object({
  host: z.string(),
  port: z.number().default(993),
  tls: z.boolean().default(true),
  username: z.string(),
  from_address: loginNeutral(z.email().describe('the From address')),
  topic: z.string().default('home'),
});
const before = settings.parse({ host: 'imap.example.com', username: 'me', from_address: 'me@example.com' });

describe('the settings whose change needs the secrets again', () => {
  it('are every changed setting but the ones marked login-neutral', () => {
    expect(loginChanges(settings, before, { ...before, from_address: 'me@example.org' })).toEqual([]);
    expect(loginChanges(settings, before, before)).toEqual([]);
    expect(
      loginChanges(settings, before, { ...before, host: 'catcher.example', port: 143, tls: false }),
    ).toEqual(['host', 'port', 'tls']);
    expect(loginChanges(settings, before, { ...before, username: 'someone-else' })).toEqual(['username']);
  });

  it('include a setting nobody marked, and one marked but wrapped again afterwards', () => {
    expect(loginChanges(settings, before, { ...before, topic: 'elsewhere' })).toEqual(['topic']);
    const wrapped = z.object({ note: loginNeutral(z.string()).optional() });
    expect(loginChanges(wrapped, {}, { note: 'x' })).toEqual(['note']);
  });

  it('include a setting the schema does not know, and compare values by content', () => {
    expect(loginChanges(settings, before, { ...before, proxy: 'http://catcher.example' })).toEqual(['proxy']);
    const lists = z.object({ hosts: z.array(z.string()) });
    expect(loginChanges(lists, { hosts: ['a', 'b'] }, { hosts: ['a', 'b'] })).toEqual([]);
    expect(loginChanges(lists, { hosts: ['a'] }, { hosts: ['a', 'b'] })).toEqual(['hosts']);
  });
});
