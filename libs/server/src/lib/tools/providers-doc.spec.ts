import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAMILIES } from './families';
import { providersTable, withProvidersTable } from './providers-doc';

const DOCUMENT = join(__dirname, '..', '..', '..', '..', '..', 'docs', 'connections.md');

describe('the documentation of the providers', () => {
  it("is the table their own schemas give (UPDATE_DOCS=1 writes it): the API's validation, the forms and the docs say the same", () => {
    const written = readFileSync(DOCUMENT, 'utf8');
    const current = withProvidersTable(written, providersTable(FAMILIES));
    if (process.env.UPDATE_DOCS === '1') writeFileSync(DOCUMENT, current);
    expect(written).toBe(current);
  });

  it('names every setting and secret of every provider, the required ones and the defaults', () => {
    const table = providersTable(FAMILIES);
    expect(table).toContain(
      '| `email` / `imap` | `settings.imap_port` | a number; 993 with TLS; 143 without |  | `993` |',
    );
    expect(table).toContain(
      '| `email` / `imap` | `secrets.password` | a secret: write-only, stored encrypted; the password, or an app password | yes |  |',
    );
    expect(table).toContain('| `files` / `local` (self-hosted only) | `settings.root` |');
  });
});
