import { z } from 'zod';
import { defineFamily, defineTool, type ToolFamily } from '@assistant/tool-kit';
import type { MemoriesRepository } from '@assistant/storage';
import type { ServerConfig, ClusterBus } from '@assistant/server-kit';
import type { ActiveConnection } from './connection-source';
import { DriverPool } from './driver-pool';
import { ToolCatalog } from './tool-catalog';

/** A home family with a counting provider: how often the catalogue opens and closes its drivers. */
function countingHome() {
  const stats = { opened: 0, closed: 0 };
  interface Hub {
    url: string;
    close(): Promise<void>;
  }
  const getState = defineTool<Hub>()({
    name: 'home_get_state',
    description: 'read',
    input: z.object({}),
    scope: 'read:home',
    handler: async (_input, { driver }) => ({ url: driver.url }),
  });
  const setState = defineTool<Hub>()({
    name: 'home_set_state',
    description: 'write',
    input: z.object({}),
    scope: 'write:home',
    side_effects: true,
    handler: async () => ({}),
  });
  const family = defineFamily<Hub>({
    name: 'home',
    description: 'devices',
    topic: { about: 'your devices', keywords: ['light'] },
    providers: [
      {
        name: 'hub',
        description: 'a hub',
        settings: z.object({ url: z.string() }),
        secrets: z.object({ token: z.string().optional() }),
        open: async ({ settings }) => {
          stats.opened++;
          return {
            url: String(settings.url),
            close: async () => {
              stats.closed++;
            },
          };
        },
        test: async () => undefined,
      },
    ],
    tools: [getState, setState],
    phrases: [],
    answer: () => '',
  });
  return { family: family as ToolFamily, stats };
}

const memoryLike = defineFamily({
  name: 'memory',
  description: 'facts',
  topic: { about: 'facts', keywords: [] },
  providers: [],
  tools: [
    defineTool()({
      name: 'memory_search',
      description: 'search',
      input: z.object({ query: z.string() }),
      scope: 'read:memories',
      handler: async () => ({}),
    }),
  ],
  phrases: [],
  answer: () => '',
});

const config = (deployment: 'self-hosted' | 'hosted') =>
  ({ deployment, dataDir: '/data', allowPrivateHosts: [], localFolders: [] }) as unknown as ServerConfig;
const hub = (id: string, updatedAt = new Date(1)): ActiveConnection => ({
  id,
  family: 'home',
  provider: 'hub',
  name: id,
  isDefault: false,
  settings: { url: `http://${id}.lan` },
  secrets: { token: 't' },
  updatedAt,
});

function catalogWith(connections: Record<string, ActiveConnection[]>, families?: ToolFamily[]) {
  const home = countingHome();
  const catalog = new ToolCatalog(
    families ?? [memoryLike as ToolFamily, home.family],
    { activeConnections: async (userId) => connections[userId] ?? [] },
    {} as MemoriesRepository,
    config('self-hosted'),
  );
  return { catalog, stats: home.stats };
}

const everything = { scopes: ['read:home', 'write:home', 'read:memories'] as const };

/** A cluster bus whose messages from other instances the test sends, and a family whose tools it changes. */
function fakeBus() {
  let toolsChanged: (message: { userId: string }) => void = () => undefined;
  let reconnect: () => void = () => undefined;
  let customChanged: () => void = () => undefined;
  const bus = {
    publish: () => undefined,
    subscribe: (_topic: string, handler: typeof toolsChanged) => {
      toolsChanged = handler;
      return () => undefined;
    },
    onReconnect: (listener: () => void) => {
      reconnect = listener;
      return () => undefined;
    },
    close: async () => undefined,
  } as unknown as ClusterBus;
  return Object.assign(bus, {
    onToolsChanged: (listener: () => void) => {
      customChanged = listener;
      return () => undefined;
    },
    peerChanged: (userId: string) => toolsChanged({ userId }),
    reconnected: () => reconnect(),
    customToolsChanged: () => customChanged(),
  });
}

describe('ToolCatalog', () => {
  it("connects an account's tools to its own connections, and never to another account's", async () => {
    const { catalog } = catalogWith({ ada: [hub('con_ada')] });
    const ada = await catalog.forRun({ userId: 'ada', ...everything });
    expect(ada.tools.map((t) => t.name)).toEqual(['home_get_state', 'home_set_state', 'memory_search']);
    const state = ada.tools.find((t) => t.name === 'home_get_state');
    expect(await state?.handler({}, { driver: state.driver } as never)).toEqual({
      url: 'http://con_ada.lan',
    });

    const bob = await catalog.forRun({ userId: 'bob', ...everything });
    expect(bob.tools.map((t) => t.name)).toEqual(['memory_search']);
    await catalog.onApplicationShutdown();
  });

  it("keeps to the token's scopes and the query's list, saying why each other tool is withheld", async () => {
    const { catalog } = catalogWith({ ada: [hub('con_ada')] });
    const run = await catalog.forRun({ userId: 'ada', scopes: ['read:home', 'read:memories'] }, [
      'home_get_state',
      'home_set_state',
    ]);
    expect(run.tools.map((t) => t.name)).toEqual(['home_get_state']);
    expect(run.withheld).toEqual([
      { name: 'home_set_state', reason: 'scope', scope: 'write:home' },
      { name: 'memory_search', reason: 'not_requested' },
    ]);
    await expect(catalog.forRun({ userId: 'ada', ...everything }, ['home_explode'])).rejects.toMatchObject({
      code: 'validation_failed',
      fieldErrors: [{ field: 'tools', message: 'unknown tool home_explode' }],
    });
    await catalog.onApplicationShutdown();
  });

  it("names the connections of the run's tools only: the account's own, and none for a run without their family", async () => {
    const { catalog } = catalogWith({ ada: [hub('con_ada'), hub('con_attic')], bob: [hub('con_bob')] });
    const all = await catalog.forRun({ userId: 'ada', ...everything });
    expect(all.connections).toEqual([
      { name: 'con_ada', family: 'home' },
      { name: 'con_attic', family: 'home' },
    ]);
    // A token narrowed to memories learns nothing of the account's home connections through the model.
    expect((await catalog.forRun({ userId: 'ada', scopes: ['read:memories'] })).connections).toEqual([]);
    expect((await catalog.forRun({ userId: 'ada', ...everything }, ['memory_search'])).connections).toEqual(
      [],
    );
    expect((await catalog.forRun({ userId: 'bob', ...everything })).connections).toEqual([
      { name: 'con_bob', family: 'home' },
    ]);
    await catalog.onApplicationShutdown();
  });

  it('opens a connection at its first call, once for many questions, again when it changed, and closes them all', async () => {
    const connections = { ada: [hub('con_ada')] };
    const { catalog, stats } = catalogWith(connections);
    const callState = async () => {
      const { tools } = await catalog.forRun({ userId: 'ada', ...everything });
      const state = tools.find((t) => t.name === 'home_get_state');
      return state?.handler({}, { driver: state.driver } as never);
    };
    await catalog.forRun({ userId: 'ada', ...everything });
    await catalog.list('ada');
    expect(stats.opened).toBe(0);
    await callState();
    await callState();
    expect(stats.opened).toBe(1);
    connections.ada = [hub('con_ada', new Date(2))];
    catalog.notifyChanged('ada');
    await callState();
    expect(stats.opened).toBe(2);
    await catalog.onApplicationShutdown();
    expect(stats.closed).toBe(2);
  });

  it('lists the whole catalogue with what this account has active', async () => {
    const { catalog } = catalogWith({ ada: [hub('con_ada')] });
    const listed = (userId: string) =>
      catalog.list(userId).then((tools) => tools.map((t) => `${t.name}:${t.active}`));
    expect(await listed('ada')).toEqual(['home_get_state:true', 'home_set_state:true', 'memory_search:true']);
    expect(await listed('bob')).toEqual([
      'home_get_state:false',
      'home_set_state:false',
      'memory_search:true',
    ]);
    const [first] = await catalog.list('ada');
    expect(first).toMatchObject({ family: 'home', scope: 'read:home', side_effects: false });
    expect(first.input_schema).toMatchObject({ type: 'object' });
    await catalog.onApplicationShutdown();
  });

  it("reads an account's connections once until its tools change: here, on another instance, or while the bus was away", async () => {
    const reads: string[] = [];
    const connections: Record<string, ActiveConnection[]> = { ada: [hub('con_ada')] };
    const bus = fakeBus();
    const custom = {
      ...memoryLike,
      name: 'custom',
      onToolsChanged: bus.onToolsChanged,
    } as unknown as ToolFamily;
    const catalog = new ToolCatalog(
      [memoryLike as ToolFamily, countingHome().family, custom],
      {
        activeConnections: async (userId) => {
          reads.push(userId);
          return connections[userId] ?? [];
        },
      },
      {} as MemoriesRepository,
      config('hosted'),
      bus,
    );
    const names = async (userId: string) =>
      (await catalog.forRun({ userId, ...everything })).tools.map((t) => t.name);
    expect(await names('ada')).toEqual([
      'home_get_state',
      'home_set_state',
      'memory_search',
      'memory_search',
    ]);
    await names('ada');
    await catalog.list('ada');
    await names('bob');
    expect(reads).toEqual(['ada', 'bob']);

    connections.ada = [];
    catalog.notifyChanged('ada');
    expect(await names('ada')).toEqual(['memory_search', 'memory_search']);
    await names('bob');
    expect(reads).toEqual(['ada', 'bob', 'ada']);

    bus.peerChanged('bob');
    await names('bob');
    bus.reconnected();
    await names('ada');
    await names('bob');
    await names('bob');
    bus.customToolsChanged();
    await names('bob');
    expect(reads).toEqual(['ada', 'bob', 'ada', 'bob', 'ada', 'bob', 'bob']);
    await catalog.onApplicationShutdown();
  });

  it("tells an account's listeners, and only them, that its tools changed", async () => {
    const { catalog } = catalogWith({});
    const heard: string[] = [];
    const stop = catalog.onChange('ada', () => heard.push('ada'));
    catalog.onChange('bob', () => heard.push('bob'));
    catalog.notifyChanged('ada');
    stop();
    catalog.notifyChanged('ada');
    expect(heard).toEqual(['ada']);
  });

  it("uses a family's default connection on the deployments it is for, per account", async () => {
    const home = countingHome();
    const withDefault = {
      ...home.family,
      defaults: [
        {
          provider: 'hub',
          name: 'Local hub',
          deployments: ['self-hosted'] as const,
          settings: (env: { dataDir?: string }, userId: string) => ({ url: `${env.dataDir}/${userId}` }),
        },
      ],
    } as ToolFamily;
    const source = { activeConnections: async () => [] };
    const selfHosted = new ToolCatalog(
      [withDefault],
      source,
      {} as MemoriesRepository,
      config('self-hosted'),
    );
    const run = await selfHosted.forRun({ userId: 'ada', ...everything });
    const state = run.tools.find((t) => t.name === 'home_get_state');
    expect(await state?.handler({}, { driver: state.driver } as never)).toEqual({ url: '/data/ada' });

    const hosted = new ToolCatalog([withDefault], source, {} as MemoriesRepository, config('hosted'));
    expect((await hosted.forRun({ userId: 'ada', ...everything })).tools).toEqual([]);
    await selfHosted.onApplicationShutdown();
  });

  it('connects each tool to the first connection whose provider serves it, the defaults last', async () => {
    const via = (name: string, providers?: string[]) =>
      defineTool<{ via: string }>()({
        name,
        description: name,
        input: z.object({}),
        scope: 'read:web',
        providers,
        handler: async (_input, { driver }) => driver.via,
      });
    const web = defineFamily<{ via: string }>({
      name: 'web',
      description: 'pages',
      topic: { about: 'pages', keywords: [] },
      providers: ['fetch', 'searxng', 'brave'].map((name) => ({
        name,
        description: name,
        settings: z.object({ label: z.string() }),
        secrets: z.object({}),
        open: async ({ settings }) => ({ via: `${name}:${settings.label}` }),
        test: async () => undefined,
      })),
      defaults: [
        {
          provider: 'fetch',
          name: 'Web',
          deployments: ['self-hosted'],
          settings: () => ({ label: 'default' }),
        },
      ],
      tools: [via('web_fetch', ['fetch']), via('web_search', ['searxng', 'brave'])],
      phrases: [],
      answer: () => '',
    });
    const connection = (id: string, provider: string): ActiveConnection => ({
      id,
      family: 'web',
      provider,
      name: id,
      isDefault: false,
      settings: { label: id },
      secrets: {},
      updatedAt: new Date(1),
    });
    const connections: Record<string, ActiveConnection[]> = {
      ada: [connection('con_b', 'brave'), connection('con_s', 'searxng')],
    };
    const catalog = new ToolCatalog(
      [web as ToolFamily],
      { activeConnections: async (userId) => connections[userId] ?? [] },
      {} as MemoriesRepository,
      config('self-hosted'),
    );
    const served = async (userId: string) => {
      const { tools } = await catalog.forRun({ userId, scopes: ['read:web'] });
      return Object.fromEntries(
        await Promise.all(
          tools.map(async (t) => [t.name, await t.handler({}, { driver: t.driver } as never)] as const),
        ),
      );
    };
    expect(await served('ada')).toEqual({ web_fetch: 'fetch:default', web_search: 'brave:con_b' });
    expect(await served('bob')).toEqual({ web_fetch: 'fetch:default' });
    expect(catalog.defaultConnections('bob')).toMatchObject([
      { id: 'con_default_web_fetch', provider: 'fetch', settings: { label: 'default' } },
    ]);
    await catalog.onApplicationShutdown();
  });

  it('refuses a tool that names a provider its family does not have', () => {
    expect(() =>
      defineFamily({
        name: 'web',
        description: 'pages',
        topic: { about: 'pages', keywords: [] },
        providers: [],
        tools: [
          defineTool()({
            name: 'web_search',
            description: 'search',
            input: z.object({}),
            scope: 'read:web',
            providers: ['bing'],
            handler: async () => ({}),
          }),
        ],
        phrases: [],
        answer: () => '',
      }),
    ).toThrow('tool web_search names bing, which is no provider of family web');
  });

  it('fails the call of a connection that cannot be opened, with its reason, and tries again next time', async () => {
    let failing = true;
    const home = countingHome();
    const provider = home.family.providers[0];
    const flaky = {
      ...home.family,
      providers: [
        {
          ...provider,
          open: async (...args: Parameters<typeof provider.open>) => {
            if (failing) throw new Error('hub unreachable');
            return provider.open(...args);
          },
        },
      ],
    } as ToolFamily;
    const catalog = new ToolCatalog(
      [flaky],
      { activeConnections: async () => [hub('con_ada')] },
      {} as MemoriesRepository,
      config('self-hosted'),
    );
    const callState = async () => {
      const { tools } = await catalog.forRun({ userId: 'ada', ...everything });
      const state = tools.find((t) => t.name === 'home_get_state');
      return state?.handler({}, { driver: state.driver } as never);
    };
    await expect(callState()).rejects.toThrow('hub unreachable');
    failing = false;
    await expect(callState()).resolves.toEqual({ url: 'http://con_ada.lan' });
    await catalog.onApplicationShutdown();
  });
});

describe('DriverPool', () => {
  it('closes a driver once it has been idle for the idle time', async () => {
    const pool = new DriverPool(30);
    let closed = 0;
    const open = async () => ({ close: async () => void closed++ });
    await pool.get('a', open);
    await new Promise((resolve) => setTimeout(resolve, 15));
    await pool.get('a', open); // used again: the idle time starts over
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(closed).toBe(1);
    expect(pool.size).toBe(0);
  });
});
