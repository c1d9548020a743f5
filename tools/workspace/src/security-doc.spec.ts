/**
 * docs/security.md names, for every endpoint, page, tool, connection provider and setting, the trust boundaries it
 * touches and the tests that would catch it crossing one. This suite keeps that document true: a row for every
 * route of the contract, every tool a family declares, every provider, every page path and every setting; every
 * cited test file exists and holds the cited title; and the rows that still say `none yet` can only get fewer.
 *
 * The tables' format is written at the top of docs/security.md (an HTML comment). The surface is read from where
 * it is declared: the routes from @assistant/contracts, the rest from the source files of the server and of the
 * tool families (a workspace check may not import those), with a sanity check that each reading found something.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { ENDPOINTS } from '@assistant/contracts';

const WORKSPACE_ROOT = path.join(__dirname, '..', '..', '..');
const DOCUMENT = 'docs/security.md';

/**
 * How many rows of docs/security.md may say `none yet` (a boundary with no negative test so far). Lower it when a
 * test closes a gap; never raise it: a new endpoint, tool, page, provider or setting ships with its negative test.
 */
const MAX_ROWS_WITHOUT_TESTS = 0;

/** The tables of the document, by the title of their first column. */
const TABLE_KINDS = ['#', 'rule', 'operation', 'endpoint', 'page', 'tool', 'provider', 'setting'] as const;
type TableKind = (typeof TABLE_KINDS)[number];

interface Row {
  /** 1-based line in the document, for messages. */
  line: number;
  /** The cells by their column's title (lower case). */
  cells: Record<string, string>;
  /** How many cells the line has: a row of another width than its header is broken. */
  width: number;
}

interface Table {
  kind: TableKind;
  columns: string[];
  rows: Row[];
}

type Item =
  { kind: 'citation'; file: string; title: string } | { kind: 'none yet' } | { kind: 'bad'; text: string };

const read = (relative: string) => readFileSync(path.join(WORKSPACE_ROOT, relative), 'utf8');

/** The cells of a Markdown table line; `\|` is a pipe inside a cell. */
function cellsOf(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** Every table of `markdown`: a header line, a `|---|` line, then rows, up to the first line that is no row. */
function tablesOf(markdown: string): Array<{ line: number; columns: string[]; rows: Row[] }> {
  const lines = markdown.split('\n');
  const tables: Array<{ line: number; columns: string[]; rows: Row[] }> = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('|') || !/^\|[\s|:-]+\|$/.test(lines[i + 1]?.trim() ?? '')) continue;
    const columns = cellsOf(lines[i]).map((c) => c.toLowerCase());
    const rows: Row[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j].startsWith('|'); j++) {
      const cells = cellsOf(lines[j]);
      const byColumn = Object.fromEntries(columns.map((column, k) => [column, cells[k] ?? '']));
      rows.push({ line: j + 1, cells: byColumn, width: cells.length });
    }
    tables.push({ line: i + 1, columns, rows });
    i = j - 1;
  }
  return tables;
}

/** The items of a tests cell: `` `path/to/file.spec.ts` › title ``, or `none yet` (with what is missing). */
function itemsOf(cell: string): Item[] {
  return cell
    .split('<br>')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item): Item => {
      if (/^none yet\b/.test(item)) return { kind: 'none yet' };
      const citation = /^`([^`\s]+\.ts)` › (.+)$/.exec(item);
      return citation
        ? { kind: 'citation', file: citation[1], title: citation[2] }
        : { kind: 'bad', text: item };
    });
}

/** The names in backticks of a cell: `` `createQuery` ``, `` `ASSISTANT_HOST`, `ASSISTANT_PORT` ``. */
function namesIn(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

/** A test file's text with the escapes of its string literals undone, so that a title is found as it reads. */
function sourceText(relative: string): string {
  return read(relative).replace(/\\(['"`\\])/g, '$1');
}

/** What is wrong with a citation, or null. */
function citationProblem(file: string, title: string): string | null {
  if (path.isAbsolute(file) || file.split('/').includes('..')) return `${file}: not a path in the repository`;
  if (!existsSync(path.join(WORKSPACE_ROOT, file))) return `${file}: no such file`;
  return sourceText(file).includes(title) ? null : `${file}: no test titled "${title}"`;
}

function document(): Table[] {
  return tablesOf(read(DOCUMENT)).map((table) => {
    const kind = table.columns[0] as TableKind;
    if (!TABLE_KINDS.includes(kind)) {
      throw new Error(
        `${DOCUMENT}:${table.line}: a table whose first column is "${kind}", not one of ${TABLE_KINDS.join(', ')}`,
      );
    }
    return { kind, columns: table.columns, rows: table.rows };
  });
}

function rowsOf(tables: Table[], kind: TableKind): Row[] {
  return tables.filter((t) => t.kind === kind).flatMap((t) => t.rows);
}

function keysOf(tables: Table[], kind: TableKind): string[] {
  return rowsOf(tables, kind).flatMap((row) => namesIn(row.cells[kind]));
}

/** Files under `folder` (relative to the root) whose name passes `keep`. */
function filesIn(folder: string, keep: (name: string) => boolean): string[] {
  const absolute = path.join(WORKSPACE_ROOT, folder);
  return existsSync(absolute)
    ? readdirSync(absolute)
        .filter(keep)
        .map((name) => path.posix.join(folder, name))
    : [];
}

function toolFamilies(): string[] {
  return readdirSync(path.join(WORKSPACE_ROOT, 'libs/tools')).filter((family) => family !== 'kit');
}

/** The tools the families declare: the `name:` of each `libs/tools/<family>/src/lib/tools/*.tool.ts`. */
function declaredTools(): string[] {
  return toolFamilies()
    .flatMap((family) => filesIn(`libs/tools/${family}/src/lib/tools`, (name) => name.endsWith('.tool.ts')))
    .map((file) => /\bname: '([a-z]+_[a-z_]+)'/.exec(read(file))?.[1] ?? `${file}: no tool name found`);
}

/** The providers of the families: a definition's `name: 'x',` followed by its `description:`. */
function declaredProviders(): string[] {
  return toolFamilies()
    .flatMap((family) =>
      filesIn(`libs/tools/${family}/src/lib`, (name) => /(?<!\.spec|\.family)\.ts$/.test(name)),
    )
    .flatMap((file) =>
      [...read(file).matchAll(/\bname: '([a-z][a-z0-9-]*)',\s*\n\s*description:/g)].map((m) => m[1]),
    );
}

/** Every variable of the settings schemas (`NAME: setting(`), both deployments'. */
function declaredSettings(): string[] {
  const source = read('libs/server-kit/src/lib/config/settings.ts');
  return [...new Set([...source.matchAll(/^\s+([A-Z][A-Z0-9_]*): setting\(/gm)].map((m) => m[1]))];
}

/** The page paths of PAGE_PATHS, with `:id` written `{id}` as the document writes paths. */
function declaredPagePaths(): string[] {
  const source = read('libs/server-kit/src/lib/pages/page-route.ts');
  const block = /export const PAGE_PATHS = \{([\s\S]*?)\} as const/.exec(source)?.[1] ?? '';
  return [...block.matchAll(/^\s+\w+: '(\/[^']*)',?$/gm)].map((m) => m[1].replace(/:(\w+)/g, '{$1}'));
}

/** `names` that no row names, and row names that are none of `names` (left over from something removed). */
function coverage(names: string[], rowNames: string[]): { missing: string[]; unknown: string[] } {
  return {
    missing: names.filter((name) => !rowNames.includes(name)),
    unknown: rowNames.filter((name) => !names.includes(name)),
  };
}

describe(`${DOCUMENT}`, () => {
  let tables: Table[];
  beforeAll(() => {
    tables = document();
  });

  it('reads the surface it checks from where it is declared', () => {
    expect(ENDPOINTS.length).toBeGreaterThan(30);
    expect(declaredTools()).toEqual(expect.arrayContaining(['memory_save', 'web_fetch', 'email_send']));
    expect(declaredTools().every((name) => /^[a-z]+_[a-z_]+$/.test(name))).toBe(true);
    expect(declaredProviders()).toEqual(expect.arrayContaining(['fetch', 'local', 'imap', 'mqtt']));
    expect(declaredSettings()).toEqual(expect.arrayContaining(['ASSISTANT_PORT', 'ASSISTANT_REDIS_URL']));
    expect(declaredPagePaths()).toEqual(expect.arrayContaining(['/signin', '/profile/tokens/{id}/revoke']));
    expect(tables.map((t) => t.kind)).toEqual(expect.arrayContaining([...TABLE_KINDS]));
  });

  it('keeps to its table format: known columns, whole rows, boundaries B1–B9', () => {
    const problems: string[] = [];
    for (const table of tables) {
      const needed = table.kind === '#' ? ['#', 'tests'] : [table.kind, 'boundaries', 'tests'];
      for (const column of needed.filter((c) => !table.columns.includes(c))) {
        problems.push(`a ${table.kind} table without a "${column}" column`);
      }
      for (const row of table.rows) {
        if (row.width !== table.columns.length) {
          problems.push(`line ${row.line}: ${row.width} cells, not ${table.columns.length}`);
        }
        const boundaries = row.cells['boundaries'];
        if (boundaries !== undefined && !/^(—|B[1-9](, B[1-9])*)$/.test(boundaries)) {
          problems.push(`line ${row.line}: boundaries "${boundaries}" (write "B1, B4", or "—")`);
        }
      }
    }
    expect(rowsOf(tables, '#').map((row) => row.cells['#'])).toEqual([
      'B1',
      'B2',
      'B3',
      'B4',
      'B5',
      'B6',
      'B7',
      'B8',
      'B9',
    ]);
    expect(problems).toEqual([]);
  });

  it('has a row for every route of the contract, with its method and path', () => {
    const rows = rowsOf(tables, 'operation');
    expect(
      coverage(
        ENDPOINTS.map((e) => e.operationId),
        keysOf(tables, 'operation'),
      ),
    ).toEqual({
      missing: [],
      unknown: [],
    });
    const wrong = ENDPOINTS.flatMap((endpoint) => {
      const row = rows.find((r) => namesIn(r.cells['operation']).includes(endpoint.operationId));
      const written = namesIn(row?.cells['method and path'] ?? '')[0];
      const served = `${endpoint.method} ${endpoint.mount === 'root' ? '' : '/api/v1'}${endpoint.path}`;
      return written === served ? [] : [`${endpoint.operationId}: "${written}", served as "${served}"`];
    });
    expect(wrong).toEqual([]);
  });

  it('has a row for every tool a family declares', () => {
    const named = keysOf(tables, 'tool').filter((name) => /^[a-z]+_[a-z_]+$/.test(name));
    expect(coverage(declaredTools(), named)).toEqual({ missing: [], unknown: [] });
  });

  it('has a row for every connection provider', () => {
    expect(coverage(declaredProviders(), keysOf(tables, 'provider'))).toEqual({ missing: [], unknown: [] });
  });

  it('has a row for every page path', () => {
    const pages = keysOf(tables, 'page').join('\n');
    const missing = declaredPagePaths().filter(
      (p) => !new RegExp(`^(GET|POST) ${literally(p)}$`, 'm').test(pages),
    );
    expect(missing).toEqual([]);
  });

  it('names every setting in a row (a group row names several)', () => {
    expect(coverage(declaredSettings(), keysOf(tables, 'setting'))).toEqual({ missing: [], unknown: [] });
  });

  it('cites tests that exist, by a title their file holds', () => {
    const problems = tables.flatMap((table) =>
      table.rows.flatMap((row) =>
        itemsOf(row.cells['tests']).flatMap((item) => {
          if (item.kind === 'bad')
            return [`line ${row.line}: "${item.text}" is neither a citation nor none yet`];
          const problem = item.kind === 'citation' ? citationProblem(item.file, item.title) : null;
          return problem ? [`line ${row.line}: ${problem}`] : [];
        }),
      ),
    );
    expect(problems).toEqual([]);
    expect(tables.every((t) => t.rows.every((row) => itemsOf(row.cells['tests']).length > 0))).toBe(true);
  });

  it(`has at most ${MAX_ROWS_WITHOUT_TESTS} rows still waiting for a negative test (none yet)`, () => {
    const waiting = tables
      .flatMap((t) => t.rows)
      .filter((row) => itemsOf(row.cells['tests']).some((item) => item.kind === 'none yet'));
    expect(waiting.length).toBeLessThanOrEqual(MAX_ROWS_WITHOUT_TESTS);
  });
});

describe('the reading of docs/security.md', () => {
  it('tells a citation, a gap and anything else apart', () => {
    expect(
      itemsOf('`libs/a.spec.ts` › refuses `x` | y<br>none yet — B2: another token<br>see the other test'),
    ).toEqual([
      { kind: 'citation', file: 'libs/a.spec.ts', title: 'refuses `x` | y' },
      { kind: 'none yet' },
      { kind: 'bad', text: 'see the other test' },
    ]);
  });

  it('reads tables with pipes inside cells', () => {
    const [table] = tablesOf('text\n\n| tool | tests |\n|---|---|\n| `a_b` | x \\| y |\n| `c_d` |\n\nafter');
    expect(table.columns).toEqual(['tool', 'tests']);
    expect(table.rows.map((r) => r.cells)).toEqual([
      { tool: '`a_b`', tests: 'x | y' },
      { tool: '`c_d`', tests: '' },
    ]);
    expect(table.rows.map((r) => r.width)).toEqual([2, 1]);
  });

  it('finds a cited title in its file, and says what is wrong with a citation', () => {
    const self = 'tools/workspace/src/security-doc.spec.ts';
    expect(citationProblem(self, 'tells a citation, a gap and anything else apart')).toBeNull();
    // Put together here, so that this file does not hold the title it says is missing.
    const unwritten = ['a', 'title', 'nobody', 'wrote'].join(' ');
    expect(citationProblem(self, unwritten)).toBe(`${self}: no test titled "${unwritten}"`);
    expect(citationProblem('libs/nothing.spec.ts', 'x')).toBe('libs/nothing.spec.ts: no such file');
    expect(citationProblem('../shared/x.spec.ts', 'x')).toBe(
      '../shared/x.spec.ts: not a path in the repository',
    );
  });
});

/** `text` as a regular expression that matches it and nothing else. */
function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
