import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DriverEnvironment } from '@assistant/tool-kit';
import { LocalFolder } from './local-folder';
import { localProvider } from './local.provider';
import { filesFamily } from './files.family';

let base: string;
let root: string;
let outside: string;
let folder: LocalFolder;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'assistant-files-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'notes'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(
    join(root, 'notes', 'taxes-2025.txt'),
    'Receipts for the tax return\nAsk Sam about the deadline\n',
  );
  writeFileSync(join(root, 'notes', 'todo.txt'), 'buy stamps\n');
  writeFileSync(join(root, 'photo.jpg'), Buffer.from([0xff, 0xd8, 0x00, 0x10]));
  writeFileSync(join(outside, 'secret.txt'), 'not yours');
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(join(outside, 'secret.txt'), join(root, 'secret-link.txt'));
  folder = await LocalFolder.open(root);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('a local folder', () => {
  it('lists, searches by name and by content, and reads text', async () => {
    expect((await folder.list('notes')).map((e) => e.path)).toEqual([
      'notes/taxes-2025.txt',
      'notes/todo.txt',
    ]);
    const found = await folder.search('deadline', '.', new AbortController().signal);
    expect(found).toEqual([
      { path: 'notes/taxes-2025.txt', match: 'content', line: 'Ask Sam about the deadline' },
    ]);
    expect(await folder.search('taxes', '.', new AbortController().signal)).toEqual([
      { path: 'notes/taxes-2025.txt', match: 'name' },
    ]);
    expect(await folder.read('notes/todo.txt')).toEqual({
      path: 'notes/todo.txt',
      text: 'buy stamps\n',
      truncated: false,
    });
  });

  it.each([
    ['../outside/secret.txt', /outside the folder/],
    ['notes/../../outside/secret.txt', /outside the folder/],
    ['/etc/passwd', /is absolute/],
    ['escape/secret.txt', /leads outside the folder/],
    ['secret-link.txt', /leads outside the folder/],
    ['a\0b', /NUL/],
  ])('refuses to read %j', async (path, reason) => {
    await expect(folder.read(path)).rejects.toThrow(reason);
  });

  it('never writes, moves or deletes through a link or outside the folder', async () => {
    await expect(folder.write('escape/new.txt', 'x', false)).rejects.toThrow(/outside the folder/);
    await expect(folder.write('secret-link.txt', 'overwritten', true)).rejects.toThrow();
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('not yours');
    await expect(folder.move('notes/todo.txt', '../stolen.txt')).rejects.toThrow(/outside the folder/);
    await expect(folder.move('notes/todo.txt', 'escape/stolen.txt')).rejects.toThrow(/outside the folder/);
    await expect(folder.delete('escape/secret.txt')).rejects.toThrow(/outside the folder/);
    await expect(folder.delete('.')).rejects.toThrow(/folder itself/);
    expect(existsSync(join(outside, 'secret.txt'))).toBe(true);
  });

  it('writes new files, replaces one only when asked, moves and deletes', async () => {
    await folder.write('shopping.txt', 'milk\n', false);
    await expect(folder.write('shopping.txt', 'eggs\n', false)).rejects.toThrow(/exists already/);
    await folder.write('shopping.txt', 'eggs\n', true);
    expect(readFileSync(join(root, 'shopping.txt'), 'utf8')).toBe('eggs\n');
    await folder.move('shopping.txt', 'notes/shopping.txt');
    expect(existsSync(join(root, 'notes', 'shopping.txt'))).toBe(true);
    await folder.delete('notes/shopping.txt');
    expect(existsSync(join(root, 'notes', 'shopping.txt'))).toBe(false);
    await expect(folder.delete('notes')).rejects.toThrow(/not empty/);
  });

  it('refuses binary files and cuts long ones', async () => {
    await expect(folder.read('photo.jpg')).rejects.toThrow(/not a text file/);
    writeFileSync(join(root, 'long.txt'), 'a'.repeat(150_000));
    const long = await folder.read('long.txt');
    expect(long.truncated).toBe(true);
    expect(long.text).toHaveLength(100_000);
  });
});

describe('the local provider', () => {
  const env = (dataDir: string, localFolders: string[] = []): DriverEnvironment => ({
    deployment: 'self-hosted',
    dataDir,
    localFolders,
    allowPrivateHosts: [],
    signal: new AbortController().signal,
  });

  it('opens only folders the operator allows: the data directory’s own, and ASSISTANT_LOCAL_FOLDERS', async () => {
    const open = (root: string, e: DriverEnvironment) =>
      localProvider.open({ settings: localProvider.settings.parse({ root, create: true }), secrets: {} }, e);
    await expect(open(root, env(join(base, 'data')))).rejects.toThrow(/not among the folders/);
    await expect(open('/etc', env(join(base, 'data')))).rejects.toThrow(/not among the folders/);
    const allowed = await open(root, env(join(base, 'data'), [root]));
    await expect(localProvider.test(allowed, new AbortController().signal)).resolves.toBeUndefined();
    // The default folder of an account is created in the data directory on first use.
    const settings = filesFamily.defaults?.[0].settings(env(join(base, 'data')), 'usr_1');
    expect(settings).toEqual({ root: join(base, 'data', 'files', 'usr_1'), create: true });
    await open(String(settings?.root), env(join(base, 'data')));
    expect(existsSync(join(base, 'data', 'files', 'usr_1'))).toBe(true);
  });
});

describe('the files family', () => {
  const at = { now: new Date(), timeZone: 'UTC' };

  it('understands every example of its phrasings', () => {
    for (const rule of filesFamily.phrases) {
      for (const example of rule.examples) {
        const text = example.replace(/[.!]+$/, '');
        const match = rule.patterns.map((p) => text.match(p)).find(Boolean);
        expect({ example, matched: Boolean(match) }).toEqual({ example, matched: true });
      }
    }
    const write = filesFamily.phrases.find((r) => r.intent === 'files.write');
    const match = 'write "milk and eggs" to shopping.txt'.match(write!.patterns[0]);
    expect(write!.act(match!, '', at)).toEqual({
      kind: 'tool',
      tool: 'files_write',
      input: { path: 'shopping.txt', text: 'milk and eggs\n' },
    });
  });

  it('asks before anything that changes a file', () => {
    const changing = filesFamily.tools.filter((t) => t.side_effects).map((t) => t.name);
    expect(changing).toEqual(['files_write', 'files_move', 'files_delete']);
    expect(filesFamily.tools.filter((t) => t.side_effects).every((t) => t.scope === 'write:files')).toBe(
      true,
    );
  });

  it('answers in sentences', () => {
    expect(filesFamily.answer('files_search', { query: 'taxes', files: [] })).toBe(
      'I found no files about “taxes”.',
    );
    expect(
      filesFamily.answer('files_list', {
        path: 'notes',
        entries: [
          { path: 'notes/a.txt', type: 'file', modified: '' },
          { path: 'notes/old', type: 'folder', modified: '' },
        ],
      }),
    ).toBe('In notes: notes/a.txt and notes/old/.');
    expect(filesFamily.answer('files_write', { path: 'shopping.txt' })).toBe('I saved shopping.txt.');
  });
});
