import { statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ALL_SCOPES, connectionSchema, type Connection, type ToolInfo } from '@assistant/contracts';
import {
  callTool,
  ConnectionTestError,
  defineFamily,
  defineTool,
  parseToolInput,
  type ToolFamily,
} from '@assistant/tool-kit';
import { SECRETS_KEY_FILE } from '@assistant/server-kit';
import { createAccount } from '../accounts/create-account';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { ToolCatalog } from './tool-catalog';

const SECRET = 'hub-token-7f3a9c';

/** A home hub that accepts one token: stands in for a real provider, which the families' own tests cover. */
const hubFamily = defineFamily<{ url: string }>({
  name: 'home',
  description: 'devices',
  topic: { about: 'your devices', keywords: [] },
  providers: [
    {
      name: 'hub',
      description: 'Test hub',
      settings: z.object({ url: z.url() }),
      secrets: z.object({ token: z.string().min(1) }),
      open: async ({ settings }) => ({ url: String(settings.url) }),
      test: async (_driver) => undefined,
    },
  ],
  tools: [
    defineTool<{ url: string }>()({
      name: 'home_list_devices',
      description: 'devices',
      input: z.object({}),
      scope: 'read:home',
      handler: async (_input, { driver }) => ({ hub: driver.url }),
    }),
  ],
  phrases: [],
  answer: () => '',
});
// The hub refuses every token but the right one, with its own words.
const hub = hubFamily.providers[0];
hub.open = async ({ settings, secrets }) => {
  if (secrets.token !== SECRET) throw new ConnectionTestError('the hub said: 401 invalid access token');
  return { url: String(settings.url) };
};

/**
 * A family with a default connection (a plain fetcher every account has) and a second provider that alone serves
 * its search tool, as the web family has.
 */
const pageTool = (name: string, providers?: string[]) =>
  defineTool<{ via: string }>()({
    name,
    description: name,
    input: z.object({}),
    scope: 'read:web',
    providers,
    handler: async (_input, { driver }) => driver.via,
  });
const lookupFamily = defineFamily<{ via: string }>({
  name: 'web',
  description: 'pages',
  topic: { about: 'pages', keywords: [] },
  providers: ['plain', 'search'].map((name) => ({
    name,
    description: `Test ${name}`,
    settings: z.object({}),
    secrets: z.object({}),
    open: async () => ({ via: name }),
    test: async () => undefined,
  })),
  defaults: [{ provider: 'plain', name: 'Pages', deployments: ['self-hosted'], settings: () => ({}) }],
  tools: [pageTool('web_get', ['plain']), pageTool('web_lookup', ['search'])],
  phrases: [],
  answer: () => '',
});

let api: InProcessApp;
beforeAll(async () => {
  api = await startInProcessApp({ families: [hubFamily as ToolFamily, lookupFamily as ToolFamily] });
});
afterAll(() => api?.close());

const post = (payload: object, token?: string) =>
  api.inject({ method: 'POST', url: '/api/v1/connections', payload, token });
const goodHub = {
  family: 'home',
  provider: 'hub',
  settings: { url: 'http://hub.lan' },
  secrets: { token: SECRET },
};

describe('connections', () => {
  let created: Connection;

  it('tries a connection, saves it without ever showing its secrets, and its tools become active', async () => {
    const res = await post({ ...goodHub, name: 'Living room hub' });
    expect(res.statusCode).toBe(201);
    created = connectionSchema.parse(res.json());
    expect(created).toMatchObject({ family: 'home', provider: 'hub', name: 'Living room hub', status: 'ok' });
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain('secrets');

    const list = await api.inject({ method: 'GET', url: '/api/v1/connections' });
    expect(list.json().data.map((c: Connection) => c.id)).toEqual([created.id, 'con_default_web_plain']);
    expect(list.body).not.toContain(SECRET);
    const tools = await api.inject({ method: 'GET', url: '/api/v1/tools' });
    expect(tools.json().data).toContainEqual(
      expect.objectContaining({ name: 'home_list_devices', active: true }),
    );
  });

  it('keeps secrets sealed at rest, under a key file only the server can read', async () => {
    const [row] = await api.storage.connections.list(api.userId);
    expect(row.sealedSecrets).toMatch(/^v1:/);
    expect(row.sealedSecrets).not.toContain(SECRET);
    const keyFile = join(api.config.dataDir as string, SECRETS_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('refuses a connection the remote server refuses, with its reason, and saves nothing', async () => {
    const before = (await api.storage.connections.list(api.userId)).length;
    const res = await post({ ...goodHub, secrets: { token: 'wrong-token-91b2' } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'connection_failed',
      detail: 'the connection was tried and refused: the hub said: 401 invalid access token',
    });
    expect(res.body).not.toContain('wrong-token-91b2');
    expect((await api.storage.connections.list(api.userId)).length).toBe(before);
  });

  it("checks the family, the provider and the provider's own settings and secrets", async () => {
    const cases: Array<[object, string]> = [
      [{ ...goodHub, family: 'email' }, 'family'],
      [{ ...goodHub, provider: 'zigbee' }, 'provider'],
      [{ ...goodHub, settings: { url: 'not a url' } }, 'settings.url'],
      [{ ...goodHub, secrets: {} }, 'secrets.token'],
    ];
    for (const [payload, field] of cases) {
      const res = await post(payload);
      expect({ field, status: res.statusCode, code: res.json().code }).toEqual({
        field,
        status: 422,
        code: 'validation_failed',
      });
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
  });

  it('tries a changed connection again and keeps the old one when the change is refused', async () => {
    const patch = (payload: object) =>
      api.inject({ method: 'PATCH', url: `/api/v1/connections/${created.id}`, payload });
    expect((await patch({ secrets: { token: 'nope-4c1d' } })).json()).toMatchObject({
      code: 'connection_failed',
    });
    const renamed = await patch({ name: 'Hub' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Hub', settings: { url: 'http://hub.lan' } });
    // Another address is where the connection logs in: its secrets come with the change.
    const unsure = await patch({ settings: { url: 'http://hub2.lan' } });
    expect(unsure.statusCode).toBe(422);
    expect(unsure.json().errors).toEqual([
      { field: 'secrets', message: expect.stringMatching(/^changing url/) },
    ]);
    const moved = await patch({ settings: { url: 'http://hub2.lan' }, secrets: { token: SECRET } });
    expect(moved.json()).toMatchObject({ settings: { url: 'http://hub2.lan' } });
  });

  it("hides one account's connections from another, and needs write:tools to change them", async () => {
    const other = await createAccount(api.storage, { email: 'other@example.test', scopes: ALL_SCOPES });
    const asOther = { token: other.token };
    const theirs = await api.inject({ method: 'GET', url: '/api/v1/connections', ...asOther });
    expect(theirs.json().data.map((c: Connection) => c.id)).toEqual(['con_default_web_plain']);
    for (const method of ['PATCH', 'DELETE'] as const) {
      const res = await api.inject({
        method,
        url: `/api/v1/connections/${created.id}`,
        payload: method === 'PATCH' ? { name: 'mine now' } : undefined,
        ...asOther,
      });
      expect(res.statusCode).toBe(404);
    }
    const tools = await api.inject({ method: 'GET', url: '/api/v1/tools', ...asOther });
    expect(tools.json().data).toContainEqual(
      expect.objectContaining({ name: 'home_list_devices', active: false }),
    );
    const readOnly = await api.issueToken(['read:tools']);
    expect((await post(goodHub, readOnly)).statusCode).toBe(403);
  });

  it('writes no secret to the log', () => {
    const logged = JSON.stringify(api.logs());
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain('wrong-token-91b2');
  });

  it('removes a connection, and its tools leave the account', async () => {
    const res = await api.inject({ method: 'DELETE', url: `/api/v1/connections/${created.id}` });
    expect(res.statusCode).toBe(204);
    const tools = await api.inject({ method: 'GET', url: '/api/v1/tools' });
    expect(tools.json().data).toContainEqual(
      expect.objectContaining({ name: 'home_list_devices', active: false }),
    );
    expect(
      (await api.inject({ method: 'DELETE', url: `/api/v1/connections/${created.id}` })).statusCode,
    ).toBe(404);
  });

  it("lists the default connections after the account's own, and refuses to change or remove them", async () => {
    const list = (await api.inject({ method: 'GET', url: '/api/v1/connections' })).json()
      .data as Connection[];
    const fallback = list.find((c) => c.id === 'con_default_web_plain');
    expect(fallback).toMatchObject({
      family: 'web',
      provider: 'plain',
      name: 'Pages',
      built_in: true,
      default: true,
    });
    expect(list.filter((c) => !c.built_in).every((c) => c.id !== fallback?.id)).toBe(true);
    for (const method of ['PATCH', 'DELETE'] as const) {
      const res = await api.inject({
        method,
        url: '/api/v1/connections/con_default_web_plain',
        payload: method === 'PATCH' ? { name: 'mine' } : undefined,
      });
      expect({ method, status: res.statusCode, code: res.json().code }).toEqual({
        method,
        status: 409,
        code: 'conflict',
      });
    }
  });

  it('connects each tool to the first connection that serves it: a search connection adds search, the default keeps fetching', async () => {
    const active = async () =>
      Object.fromEntries(
        ((await api.inject({ method: 'GET', url: '/api/v1/tools' })).json().data as ToolInfo[])
          .filter((t) => t.family === 'web')
          .map((t) => [t.name, t.active]),
      );
    expect(await active()).toEqual({ web_get: true, web_lookup: false });
    const search = await post({ family: 'web', provider: 'search' });
    expect(search.statusCode).toBe(201);
    expect(await active()).toEqual({ web_get: true, web_lookup: true });
    await api.inject({ method: 'DELETE', url: `/api/v1/connections/${search.json().id}` });
    expect(await active()).toEqual({ web_get: true, web_lookup: false });
  });

  describe('several of one family', () => {
    const hubAt = (name: string, url: string, extra: object = {}) =>
      post({ ...goodHub, name, settings: { url }, ...extra });
    /** Calls home_list_devices as a run would, with `input` as the model gave it. */
    const listDevices = async (input: object) => {
      const { tools } = await api.app.get(ToolCatalog).forRun({ userId: api.userId, scopes: ALL_SCOPES });
      const tool = tools.find((t) => t.name === 'home_list_devices')!;
      const context = { userId: api.userId, discussionId: null, timeZone: 'UTC', notify: () => undefined };
      return callTool(
        tool,
        parseToolInput(tool, input),
        { ...context, signal: new AbortController().signal },
        5_000,
      );
    };

    it('names each; the first of the family is its default, and GET /connections says which', async () => {
      const work = connectionSchema.parse((await hubAt('Work', 'http://work.lan')).json());
      const home = connectionSchema.parse((await hubAt('Home', 'http://home.lan')).json());
      expect([work.default, home.default]).toEqual([true, false]);
      const taken = await hubAt('WORK', 'http://other.lan');
      expect(taken.statusCode).toBe(409);
      expect(taken.json().errors).toEqual([
        { field: 'name', message: expect.stringContaining('named WORK') },
      ]);
      const renamed = await api.inject({
        method: 'PATCH',
        url: `/api/v1/connections/${home.id}`,
        payload: { name: 'work' },
      });
      expect(renamed.statusCode).toBe(409);

      const made = await api.inject({
        method: 'PATCH',
        url: `/api/v1/connections/${home.id}`,
        payload: { default: true },
      });
      expect(made.json()).toMatchObject({ name: 'Home', default: true });
      const list = (await api.inject({ method: 'GET', url: '/api/v1/connections' })).json()
        .data as Connection[];
      expect(list.filter((c) => c.family === 'home').map((c) => [c.name, c.default])).toEqual([
        ['Work', false],
        ['Home', true],
      ]);
      // Only a token that may change connections moves the default.
      const readOnly = await api.issueToken(['read:tools']);
      const narrow = await api.inject({
        method: 'PATCH',
        url: `/api/v1/connections/${work.id}`,
        payload: { default: true },
        token: readOnly,
      });
      expect(narrow.statusCode).toBe(403);
      // Without a name of its own, a connection is named after its provider.
      const unnamed = await post({ ...goodHub, settings: { url: 'http://third.lan' } });
      expect(unnamed.json()).toMatchObject({ name: 'hub', default: false });
      await api.inject({ method: 'DELETE', url: `/api/v1/connections/${unnamed.json().id}` });
    });

    it("offers every family tool an optional connection argument that lists the account's names", async () => {
      const tools = (await api.inject({ method: 'GET', url: '/api/v1/tools' })).json().data as ToolInfo[];
      const schema = tools.find((t) => t.name === 'home_list_devices')!.input_schema as {
        properties: Record<string, { type: string; description: string }>;
        required?: string[];
      };
      expect(schema.properties.connection.type).toBe('string');
      expect(schema.properties.connection.description).toContain('Work, Home (the default)');
      expect(schema.required ?? []).not.toContain('connection');
    });

    it('goes through the connection a call names, the default otherwise, and lists the names for an unknown one', async () => {
      expect(await listDevices({})).toEqual({ hub: 'http://home.lan' });
      expect(await listDevices({ connection: 'work' })).toEqual({ hub: 'http://work.lan' });
      await expect(listDevices({ connection: 'Cottage' })).rejects.toThrow(
        'there is no home connection named "Cottage"; the account\'s are: Work, Home',
      );
    });

    it("never reaches another account's connection by its name: the names offered and taken are the caller's own", async () => {
      const other = await createAccount(api.storage, { email: 'names@example.test', scopes: ALL_SCOPES });
      const own = await post({ ...goodHub, name: 'Mine', settings: { url: 'http://mine.lan' } }, other.token);
      expect(own.statusCode).toBe(201);
      const { tools } = await api.app.get(ToolCatalog).forRun({ userId: other.user_id, scopes: ALL_SCOPES });
      const tool = tools.find((t) => t.name === 'home_list_devices')!;
      const schema = z.toJSONSchema(tool.input) as { properties: Record<string, { description: string }> };
      expect(schema.properties.connection.description.split('connections: ')[1]).toBe('Mine (the default).');
      const context = { userId: other.user_id, discussionId: null, timeZone: 'UTC', notify: () => undefined };
      const call = (input: object) =>
        callTool(
          tool,
          parseToolInput(tool, input),
          { ...context, signal: new AbortController().signal },
          5_000,
        );
      await expect(call({ connection: 'Work' })).rejects.toThrow(
        'there is no home connection named "Work"; the account\'s are: Mine',
      );
      expect(await call({})).toEqual({ hub: 'http://mine.lan' });
    });

    it('moves the default to the oldest left when the default is removed', async () => {
      const list = (await api.inject({ method: 'GET', url: '/api/v1/connections' })).json()
        .data as Connection[];
      const home = list.find((c) => c.name === 'Home')!;
      await api.inject({ method: 'DELETE', url: `/api/v1/connections/${home.id}` });
      const after = (await api.inject({ method: 'GET', url: '/api/v1/connections' })).json()
        .data as Connection[];
      expect(after.filter((c) => c.family === 'home').map((c) => [c.name, c.default])).toEqual([
        ['Work', true],
      ]);
      expect(await listDevices({})).toEqual({ hub: 'http://work.lan' });
    });
  });
});
