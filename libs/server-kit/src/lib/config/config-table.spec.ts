import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_TABLE_END, CONFIG_TABLE_START, configTable, withConfigTable } from './config-table';

const README = join(__dirname, '..', '..', '..', '..', '..', 'README.md');

describe("the README's configuration table", () => {
  it('is the one the settings schemas generate (run `npm run docs:config` after changing them)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(withConfigTable(readme)).toBe(readme);
  });

  it('lists every setting once, with the differences of the hosted API beside the self-hosted defaults', () => {
    const rows = configTable().split('\n').slice(2);
    const row = (variable: string) => rows.find((line) => line.startsWith(`| \`${variable}\` `));
    expect(rows).toHaveLength(new Set(rows.map((line) => line.split('|')[1].trim())).size);
    expect(row('ASSISTANT_PORT')).toMatch(
      /\| `--port` +\| `7747` \(hosted: `8080`\) +\| port; `0` picks a free one/,
    );
    expect(row('ASSISTANT_DATA_DIR')).toMatch(/\| `\$XDG_DATA_HOME\/assistant` \(hosted: not used\) +\|/);
    expect(row('ASSISTANT_DATABASE_URL')).toMatch(/\| embedded SQLite \(hosted: required\) +\|/);
    expect(row('ASSISTANT_TRUST_PROXY')).toMatch(/\| `false` +\|/);
    expect(row('OPENAI_API_KEY')).toMatch(/^\| `OPENAI_API_KEY` +\| +\| +\| for `openai:` models/);
  });

  it('replaces only what lies between its markers', () => {
    const readme = `# Title\n\nbefore\n\n${CONFIG_TABLE_START}\nstale\n${CONFIG_TABLE_END}\n\nafter\n`;
    expect(withConfigTable(readme)).toBe(
      `# Title\n\nbefore\n\n${CONFIG_TABLE_START}\n\n${configTable()}\n\n${CONFIG_TABLE_END}\n\nafter\n`,
    );
    expect(() => withConfigTable('# no markers')).toThrow(/no configuration table markers/);
  });
});
