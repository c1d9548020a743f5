import { IntentMatcher, misreadExamples, type IntentContext } from '@assistant/tool-kit';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
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

  it('creates the folders of a new file, inside the folder only', async () => {
    await folder.write('plans/2027/todo.txt', 'book the ferry\n', false);
    expect(readFileSync(join(root, 'plans', '2027', 'todo.txt'), 'utf8')).toBe('book the ferry\n');
    // A link that leads out of the folder is never followed to make a folder there.
    await expect(folder.write('escape/made/new.txt', 'x', false)).rejects.toThrow(/outside the folder/);
    expect(existsSync(join(outside, 'made'))).toBe(false);
    // Nor is a link below a folder made on the way.
    mkdirSync(join(root, 'deep'));
    symlinkSync(outside, join(root, 'deep', 'out'));
    await expect(folder.write('deep/out/made/new.txt', 'x', false)).rejects.toThrow(/outside the folder/);
    expect(existsSync(join(outside, 'made'))).toBe(false);
    await expect(folder.write('../made/new.txt', 'x', false)).rejects.toThrow(/outside the folder/);
    expect(existsSync(join(base, 'made'))).toBe(false);
    // A file where a folder would go is not replaced.
    await expect(folder.write('notes/todo.txt/new.txt', 'x', false)).rejects.toThrow(/^notes\/todo\.txt/);
    expect(readFileSync(join(root, 'notes', 'todo.txt'), 'utf8')).toBe('buy stamps\n');
  });

  it('refuses binary files and cuts long ones', async () => {
    await expect(folder.read('photo.jpg')).rejects.toThrow(/not a text file/);
    writeFileSync(join(root, 'long.txt'), 'a'.repeat(150_000));
    const long = await folder.read('long.txt');
    expect(long.truncated).toBe(true);
    expect(long.text).toHaveLength(100_000);
  });
});

describe('a local folder, against what else a folder may hold', () => {
  /** The promise, or a rejection saying it is still waiting after a second (a blocked thread never answers). */
  const withinASecond = <T>(work: Promise<T>): Promise<T> => {
    work.catch(() => undefined);
    return Promise.race([
      work,
      new Promise<T>((_, reject) => setTimeout(() => reject(new Error('still waiting after 1 s')), 1_000)),
    ]);
  };
  /** Opens both ends of a FIFO for a moment, so that an open still waiting on it returns. */
  const release = (fifo: string) => {
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    closeSync(reader);
  };

  it('refuses a FIFO before opening it: reading, replacing or searching never waits for a writer', async () => {
    const fifo = join(root, 'notes', 'pipe.txt');
    execFileSync('mkfifo', [fifo]);
    try {
      await expect(withinASecond(folder.read('notes/pipe.txt'))).rejects.toThrow(
        'notes/pipe.txt is not a regular file',
      );
      await expect(withinASecond(folder.write('notes/pipe.txt', 'x', true))).rejects.toThrow(
        'notes/pipe.txt is not a regular file',
      );
      await expect(withinASecond(folder.search('buy', '.', new AbortController().signal))).resolves.toEqual([
        { path: 'notes/todo.txt', match: 'content', line: 'buy stamps' },
      ]);
    } finally {
      release(fifo);
    }
  });

  it("names paths relative to the folder in its errors, never the server's own", async () => {
    writeFileSync(join(root, 'notes', 'sub.txt'), 'x');
    const failures: Array<() => Promise<unknown>> = [
      () => folder.list('notes/todo.txt'),
      () => folder.search('x', 'notes/todo.txt', new AbortController().signal),
      () => folder.write('notes', 'x', true),
      () => folder.move('notes', 'notes/inside'),
      () => folder.delete('notes/todo.txt/x'),
      () => folder.write('notes/todo.txt/x', 'x', false),
    ];
    for (const failure of failures) {
      const error = await failure().then(
        () => new Error('it did not fail'),
        (e: Error) => e,
      );
      expect(error.message).not.toContain(base);
      expect(error.message).toMatch(/^(the folder of )?notes/);
    }
  });

  it("opens a folder without naming it in its errors (an account's default folder is a server path)", async () => {
    writeFileSync(join(base, 'plain-file'), 'x');
    for (const [at, create] of [
      [join(base, 'missing'), false],
      [join(base, 'plain-file'), false],
      [join(base, 'plain-file', 'below'), true],
    ] as const) {
      const error = (await LocalFolder.open(at, create).catch((e: Error) => e)) as Error;
      expect(error).toBeInstanceOf(Error);
      expect(error.message).not.toContain(base);
    }
  });
});

describe('the local provider', () => {
  const env = (dataDir: string, localFolders: string[] = [], userId = 'usr_1'): DriverEnvironment => ({
    deployment: 'self-hosted',
    dataDir,
    userId,
    localFolders,
    allowPrivateHosts: [],
    signal: new AbortController().signal,
  });
  const open = (root: string, e: DriverEnvironment, create = true) =>
    localProvider.open({ settings: localProvider.settings.parse({ root, create }), secrets: {} }, e);

  it('opens only folders the operator allows: the data directory’s own, and ASSISTANT_LOCAL_FOLDERS', async () => {
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

  it("never opens another account's folder, the data directory, or a folder that holds it", async () => {
    const data = join(base, 'data');
    const owners = join(data, 'files', 'usr_owner');
    mkdirSync(owners, { recursive: true });
    writeFileSync(join(owners, 'diary.txt'), 'private');
    // The operator lists the folder that holds the data directory, and a link in it leads into the owner's folder.
    const shared = join(base, 'shared');
    mkdirSync(shared);
    symlinkSync(owners, join(shared, 'looks-harmless'));
    const asSecond = env(data, [base], 'usr_second');
    for (const root of [
      owners,
      join(owners, '..', 'usr_owner'),
      join(data, 'files'),
      data,
      base,
      join(shared, 'looks-harmless'),
      join(data, 'files', 'usr_not_yet_made'),
    ]) {
      const opened = await open(root, asSecond, false).then(
        () => 'opened',
        (e: Error) => e.message,
      );
      expect({ root, opened }).toEqual({
        root,
        opened: expect.stringMatching(/data directory|not among the folders/),
      });
    }
    // Its own folder, a folder inside it, and the operator's other folders open.
    await expect(open(join(data, 'files', 'usr_second'), asSecond)).resolves.toBeDefined();
    await expect(open(join(data, 'files', 'usr_second', 'photos'), asSecond)).resolves.toBeDefined();
    await expect(open(shared, asSecond)).resolves.toBeDefined();
    expect(existsSync(join(data, 'files', 'usr_not_yet_made'))).toBe(false);
  });

  it('never creates a folder on the way to a refusal', async () => {
    const data = join(base, 'data');
    await expect(open(join(data, 'files', 'usr_other', 'new'), env(data, [], 'usr_1'))).rejects.toThrow();
    expect(existsSync(join(data, 'files', 'usr_other'))).toBe(false);
  });
});

describe('the files family', () => {
  const at = { now: new Date(), timeZone: 'UTC' };

  it('understands every example of its intents, and names a new note from its words', () => {
    expect(misreadExamples(filesFamily.intents!)).toEqual([]);
    const matcher = new IntentMatcher([filesFamily.intents!]);
    const context: IntentContext = {
      ...at,
      when: () => undefined,
      known: () => undefined,
      last: () => undefined,
    };
    expect(matcher.match('write "milk and eggs" to shopping.txt', context)?.action).toEqual({
      kind: 'tool',
      tool: 'files_write',
      input: { path: 'shopping.txt', text: 'milk and eggs\n' },
    });
    expect(matcher.match('save a note called packing list that says passport', context)?.action).toEqual({
      kind: 'tool',
      tool: 'files_write',
      input: { path: 'packing-list.txt', text: 'passport\n' },
    });
    expect(matcher.match('overwrite shopping.txt with bread', context)?.action).toEqual({
      kind: 'tool',
      tool: 'files_write',
      input: { path: 'shopping.txt', text: 'bread\n', overwrite: true },
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
