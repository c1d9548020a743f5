import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createClient, type WebDAVClient } from 'webdav';
import type { DriverEnvironment } from '@assistant/tool-kit';
import type { FilesDriver } from './files.driver';
import { filesFamily } from './files.family';
import { webdavProvider } from './webdav.provider';

/** rclone serving DISK over WebDAV on loopback (`tools/workspace/services/webdav.sh`): user alice, password secret. */
const SERVER = process.env.ASSISTANT_TEST_WEBDAV_URL ?? 'http://127.0.0.1:8088';
const DISK = process.env.ASSISTANT_TEST_WEBDAV_DISK ?? '/var/tmp/assistant-webdav/root';
const signal = new AbortController().signal;
const env: DriverEnvironment = {
  deployment: 'self-hosted',
  allowPrivateHosts: [],
  localFolders: [],
  signal,
};
const open = (url: string, password = 'secret', e: DriverEnvironment = env) =>
  webdavProvider.open({ settings: { url, username: 'alice' }, secrets: { password } }, e);

let share: WebDAVClient;
/** This test's own folder of the share: the connection's folder `root/` in it, and `outside/` next to it. */
let test: string;
let url: string;
let folder: FilesDriver;
const onDisk = (path: string) => join(DISK, test, 'root', path);

beforeEach(async () => {
  share = createClient(SERVER, { username: 'alice', password: 'secret' });
  test = `test-${randomBytes(4).toString('hex')}`;
  await share.createDirectory(`/${test}/root/notes`, { recursive: true });
  await share.createDirectory(`/${test}/outside`);
  await share.putFileContents(
    `/${test}/root/notes/taxes-2025.txt`,
    'Receipts for the tax return\nAsk Sam about the deadline\n',
  );
  await share.putFileContents(`/${test}/root/notes/todo.txt`, 'buy stamps\n');
  await share.putFileContents(`/${test}/root/notes/shopping list.txt`, 'milk\n');
  // A binary file with a searched word in it: never a content match.
  await share.putFileContents(
    `/${test}/root/photo.jpg`,
    Buffer.concat([Buffer.from([0xff, 0xd8, 0x00, 0x10]), Buffer.from(' deadline')]),
  );
  await share.putFileContents(`/${test}/outside/secret.txt`, 'not yours');
  url = `${SERVER}/${test}/root/`;
  folder = await open(url);
});
afterEach(async () => {
  await share.deleteFile(`/${test}`);
});

describe('a WebDAV folder (rclone)', () => {
  it('lists, searches by name and by content, and reads text', async () => {
    const listed = await folder.list('notes');
    expect(listed.map((e) => [e.path, e.type, e.size])).toEqual([
      ['notes/shopping list.txt', 'file', 5],
      ['notes/taxes-2025.txt', 'file', 55],
      ['notes/todo.txt', 'file', 11],
    ]);
    expect(listed[0].modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await folder.list('.')).map((e) => [e.path, e.type])).toEqual([
      ['notes', 'folder'],
      ['photo.jpg', 'file'],
    ]);
    expect(await folder.search('deadline', '.', signal)).toEqual([
      { path: 'notes/taxes-2025.txt', match: 'content', line: 'Ask Sam about the deadline' },
    ]);
    expect(await folder.search('taxes', '.', signal)).toEqual([
      { path: 'notes/taxes-2025.txt', match: 'name' },
    ]);
    expect(await folder.search('stamps', 'notes', signal)).toEqual([
      { path: 'notes/todo.txt', match: 'content', line: 'buy stamps' },
    ]);
    expect(await folder.read('notes/todo.txt')).toEqual({
      path: 'notes/todo.txt',
      text: 'buy stamps\n',
      truncated: false,
    });
    await expect(folder.read('notes/missing.txt')).rejects.toThrow('notes/missing.txt does not exist');
  });

  it.each([
    ['../outside/secret.txt', /outside the folder/],
    ['notes/../../outside/secret.txt', /outside the folder/],
    ['..\\outside\\secret.txt', /outside the folder/],
    ['/etc/passwd', /is absolute/],
    ['a\0b', /NUL/],
  ])('refuses to read %j', async (path, reason) => {
    await expect(folder.read(path)).rejects.toThrow(reason);
  });

  it('never lists, writes, moves or deletes outside the folder', async () => {
    await expect(folder.list('..')).rejects.toThrow(/outside the folder/);
    await expect(folder.search('secret', '..', signal)).rejects.toThrow(/outside the folder/);
    await expect(folder.write('../outside/secret.txt', 'overwritten', true)).rejects.toThrow(
      /outside the folder/,
    );
    await expect(folder.move('notes/todo.txt', '../stolen.txt')).rejects.toThrow(/outside the folder/);
    await expect(folder.move('../outside/secret.txt', 'mine.txt')).rejects.toThrow(/outside the folder/);
    await expect(folder.delete('../outside/secret.txt')).rejects.toThrow(/outside the folder/);
    await expect(folder.delete('.')).rejects.toThrow(/folder itself/);
    expect(readFileSync(join(DISK, test, 'outside', 'secret.txt'), 'utf8')).toBe('not yours');
    expect(existsSync(join(DISK, test, 'stolen.txt'))).toBe(false);
    expect(existsSync(onDisk('notes/todo.txt'))).toBe(true);
  });

  it('writes new files, replaces one only when asked, moves and deletes', async () => {
    const written = await folder.write('shopping.txt', 'milk\n', false);
    expect(written).toMatchObject({ path: 'shopping.txt', type: 'file', size: 5 });
    await expect(folder.write('shopping.txt', 'eggs\n', false)).rejects.toThrow(/exists already/);
    expect(readFileSync(onDisk('shopping.txt'), 'utf8')).toBe('milk\n');
    await folder.write('shopping.txt', 'eggs\n', true);
    expect(readFileSync(onDisk('shopping.txt'), 'utf8')).toBe('eggs\n');
    // The folders of a new file are made, inside the connection's folder only.
    expect(await folder.write('plans/2027/todo.txt', 'book the ferry\n', false)).toMatchObject({
      path: 'plans/2027/todo.txt',
    });
    expect(readFileSync(onDisk('plans/2027/todo.txt'), 'utf8')).toBe('book the ferry\n');
    await expect(folder.write('../made/new.txt', 'x', false)).rejects.toThrow(/outside the folder/);
    expect(existsSync(join(DISK, test, 'made'))).toBe(false);
    await expect(folder.write('notes/todo.txt/new.txt', 'x', false)).rejects.toThrow(
      /^notes\/todo\.txt is a file/,
    );

    await expect(folder.move('shopping.txt', 'notes/todo.txt')).rejects.toThrow(/exists already/);
    expect(readFileSync(onDisk('notes/todo.txt'), 'utf8')).toBe('buy stamps\n');
    expect(await folder.move('shopping.txt', 'notes/shopping.txt')).toMatchObject({
      path: 'notes/shopping.txt',
    });
    expect(existsSync(onDisk('shopping.txt'))).toBe(false);
    expect(readFileSync(onDisk('notes/shopping.txt'), 'utf8')).toBe('eggs\n');

    await folder.delete('notes/shopping.txt');
    expect(existsSync(onDisk('notes/shopping.txt'))).toBe(false);
    // WebDAV would delete a folder with everything in it: only an empty one is.
    await expect(folder.delete('notes')).rejects.toThrow(/not empty/);
    expect(existsSync(onDisk('notes/todo.txt'))).toBe(true);
  });

  it('refuses binary files and cuts long ones', async () => {
    await expect(folder.read('photo.jpg')).rejects.toThrow(/not a text file/);
    await folder.write('long.txt', 'a'.repeat(150_000), false);
    const long = await folder.read('long.txt');
    expect(long.truncated).toBe(true);
    expect(long.text).toHaveLength(100_000);
    await folder.write('empty.txt', '', false);
    expect(await folder.read('empty.txt')).toEqual({ path: 'empty.txt', text: '', truncated: false });
  });
});

describe('the WebDAV provider', () => {
  it('is a provider of the files family', () => {
    expect(filesFamily.providers.map((p) => p.name)).toEqual(['local', 'webdav']);
    expect(webdavProvider.settings.safeParse({ url: 'ftp://example.com/', username: 'alice' }).success).toBe(
      false,
    );
  });

  it('tries the password before the connection is saved, and says why the server refused it', async () => {
    await expect(webdavProvider.test(folder, signal)).resolves.toBeUndefined();
    const wrong = await open(url, 'wrong');
    await expect(webdavProvider.test(wrong, signal)).rejects.toThrow('WebDAV login failed: 401 Unauthorized');
    await expect(open('ftp://127.0.0.1/files/')).rejects.toThrow(/not an http:\/\/ or https:\/\/ URL/);
  });
});

describe('on the hosted API', () => {
  const hosted = (allowPrivateHosts: string[]): DriverEnvironment => ({
    ...env,
    deployment: 'hosted',
    allowPrivateHosts,
  });

  it("refuses a folder on the service's own network unless the operator allows it", async () => {
    await expect(open(url, 'secret', hosted([]))).rejects.toThrow(
      /127\.0\.0\.1 is a private or local address/,
    );
    const allowed = await open(url, 'secret', hosted(['127.0.0.1/32']));
    await expect(webdavProvider.test(allowed, signal)).resolves.toBeUndefined();
    expect((await allowed.list('notes')).length).toBe(3);
  });

  it('does not follow a redirect to an address the operator has not allowed', async () => {
    // An allowed server that sends every request on to the (private, not allowed) rclone server.
    const redirector: Server = createServer((req, res) =>
      res.writeHead(307, { location: `${SERVER}${req.url}` }).end(),
    );
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = redirector.address() as AddressInfo;
      const driver = await open(`http://localhost:${port}/${test}/root/`, 'secret', hosted(['localhost']));
      await expect(driver.read('notes/todo.txt')).rejects.toThrow(
        /127\.0\.0\.1 is a private or local address/,
      );
    } finally {
      redirector.close();
    }
  });
});
