// The request floors answer what our server answers (a floor that answered differently would measure something
// else): our built self-hosted server, and the floors on its users and tokens copied into memory (P5) and on its
// file (P5b), compared by the very check the perf report runs before any load.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { seedDiscussions } from './api.mjs';
import { removeTempDirs, stopAll } from './processes.mjs';
import { differencesFromOurs, startRequestFloor } from './request-floors.mjs';
import { DEFAULT_SERVER, startOurServer } from './server.mjs';

describe('the request floors against our server (SQLite)', () => {
  let ours;
  let inMemory;
  let onFile;

  beforeAll(async () => {
    ours = await startOurServer(DEFAULT_SERVER);
    await seedDiscussions(ours.baseUrl, ours.token, 3);
    const file = join(ours.dataDir, 'assistant.sqlite');
    [inMemory, onFile] = await Promise.all([
      startRequestFloor('sqlite-memory', file),
      startRequestFloor('sqlite', file),
    ]);
  });
  afterAll(async () => {
    await stopAll();
    removeTempDirs();
  });

  it('answer GET /me with our JSON and rate-limit headers for the same token, from memory and from our file', async () => {
    expect(await differencesFromOurs(ours, inMemory, '/api/v1/me', ours.token)).toEqual([]);
    expect(await differencesFromOurs(ours, onFile, '/api/v1/me', ours.token)).toEqual([]);
  });

  it('answer GET /discussions?limit=2 (a page and its cursor) as ours from our file', async () => {
    expect(await differencesFromOurs(ours, onFile, '/api/v1/discussions?limit=2', ours.token)).toEqual([]);
  });

  it('in memory, hold the rows as they were when the floor started: a later change to the account shows', async () => {
    const patched = await fetch(`${ours.baseUrl}/api/v1/me`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ours.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ auto_approved_tools: ['memory_search'] }),
    });
    expect(patched.status).toBe(200);

    expect(await differencesFromOurs(ours, onFile, '/api/v1/me', ours.token)).toEqual([]);
    const [difference] = await differencesFromOurs(ours, inMemory, '/api/v1/me', ours.token);
    expect(difference).toContain("the sqlite-memory floor's JSON differs from ours");
    expect(difference).toContain('"auto_approved_tools":["memory_search"]');
  });
});
