import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ALL_SCOPES, type QueryEvent } from '@assistant/contracts';
import { createAccount } from '../accounts/create-account';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

/**
 * Local folders on a self-hosted server with two accounts (B1): each account's files live in
 * `<data-dir>/files/<account>`, so a `files/local` connection may be the account's own folder or one the operator
 * lists, never another account's, the data directory, or — even where the operator lists it — a folder that holds
 * the data directory.
 */
let api: InProcessApp;
let dataDir: string;
let second: { userId: string; token: string };
const DIARY = 'the owner’s diary 3b9f';

beforeAll(async () => {
  // The operator lists the folder that holds the data directory (the temporary directory).
  api = await startInProcessApp({ env: { ASSISTANT_LOCAL_FOLDERS: realpathSync(tmpdir()) } });
  dataDir = api.config.dataDir as string;
  const owners = join(dataDir, 'files', api.userId);
  mkdirSync(owners, { recursive: true });
  writeFileSync(join(owners, 'diary.txt'), DIARY);
  const account = await createAccount(api.storage, { email: 'second@example.test', scopes: ALL_SCOPES });
  second = { userId: account.user_id, token: account.token };
});
afterAll(() => api?.close());

const connect = (root: string, create = false) =>
  api.inject({
    method: 'POST',
    url: '/api/v1/connections',
    token: second.token,
    payload: { family: 'files', provider: 'local', settings: { root, create } },
  });

/** One query of the second account through POST /queries, its events once it ended. */
async function ask(text: string): Promise<QueryEvent[]> {
  const res = await api.inject({
    method: 'POST',
    url: '/api/v1/queries',
    payload: { text },
    token: second.token,
  });
  return res.body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as QueryEvent);
}

describe("a local folder of another account's", () => {
  it.each([
    ['the owner’s folder', () => join(dataDir, 'files', api.userId)],
    ['the owner’s folder by a detour', () => join(dataDir, 'files', second.userId, '..', api.userId)],
    ['every account’s folders', () => join(dataDir, 'files')],
    ['the data directory', () => dataDir],
    ['a folder that holds the data directory', () => dirname(dataDir)],
  ])('is refused: %s', async (_what, root) => {
    const res = await connect(root());
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'connection_failed' });
    expect(res.body).not.toContain(DIARY);
    expect((await api.storage.connections.list(second.userId)).length).toBe(0);
  });

  it('is not made on the way to a refusal', async () => {
    const res = await connect(join(dataDir, 'files', 'usr_someone_else', 'new'), true);
    expect(res.statusCode).toBe(422);
    expect(existsSync(join(dataDir, 'files', 'usr_someone_else'))).toBe(false);
  });
});

describe("an account's own folder", () => {
  it('is its default, and its files tools see that folder alone', async () => {
    const events = await ask('list my files');
    const listed = events.find((e) => e.type === 'tool_call.completed');
    expect(listed).toMatchObject({ tool: 'files_list', status: 'ok' });
    expect(JSON.stringify(events)).not.toContain('diary.txt');
  });

  it('and a folder inside it, or an operator folder outside the data directory, may be connected', async () => {
    const inside = await connect(join(dataDir, 'files', second.userId, 'photos'), true);
    expect(inside.statusCode).toBe(201);
    const elsewhere = join(realpathSync(tmpdir()), `assistant-shared-${process.pid}`);
    mkdirSync(elsewhere, { recursive: true });
    try {
      expect((await connect(elsewhere)).statusCode).toBe(201);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
