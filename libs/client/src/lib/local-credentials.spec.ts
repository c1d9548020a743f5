import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_BASE_URL,
  InvalidBaseUrlError,
  MissingTokenError,
  credentialsFileIn,
  defaultDataDir,
  readCredentials,
  resolveConnection,
  resolveDataDir,
  type Credentials,
} from './local-credentials';

const LOCAL: Credentials = {
  base_url: 'http://127.0.0.1:8080',
  token: 'ast_owner',
  user_id: 'usr_1',
  created_at: '2025-01-01T00:00:00.000Z',
};

describe('local credentials', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'assistant-client-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function dataDirWith(credentials: unknown): string {
    const dir = join(root, 'data');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      credentialsFileIn(dir),
      typeof credentials === 'string' ? credentials : JSON.stringify(credentials),
    );
    return dir;
  }

  describe('defaultDataDir', () => {
    it('is $XDG_DATA_HOME/assistant', () => {
      expect(defaultDataDir({ XDG_DATA_HOME: '/x/share' })).toBe('/x/share/assistant');
    });
    it.each([{}, { XDG_DATA_HOME: '' }, { XDG_DATA_HOME: '  ' }])(
      'is ~/.local/share/assistant for %j',
      (env) => {
        expect(defaultDataDir(env)).toBe(join(homedir(), '.local', 'share', 'assistant'));
      },
    );
  });

  it('resolveDataDir: flag, then ASSISTANT_DATA_DIR, then the default; always absolute', () => {
    const env = { ASSISTANT_DATA_DIR: '/env/dir', XDG_DATA_HOME: '/xdg' };
    expect(resolveDataDir('/flag/dir', env)).toBe('/flag/dir');
    expect(resolveDataDir(undefined, env)).toBe('/env/dir');
    expect(resolveDataDir('', { ASSISTANT_DATA_DIR: '', XDG_DATA_HOME: '/xdg' })).toBe('/xdg/assistant');
    expect(resolveDataDir('relative', {})).toBe(join(process.cwd(), 'relative'));
  });

  it('credentialsFileIn is <data-dir>/credentials.json', () => {
    expect(credentialsFileIn('/d')).toBe('/d/credentials.json');
  });

  describe('readCredentials', () => {
    it('reads the file', () => {
      expect(readCredentials(credentialsFileIn(dataDirWith({ ...LOCAL, extra: 1 })))).toEqual(LOCAL);
    });
    it('is null when the file is missing', () => {
      expect(readCredentials(join(root, 'nothing.json'))).toBeNull();
    });
    it.each([
      ['not JSON', '{ nope'],
      ['not an object', '"ast_owner"'],
      ['null', 'null'],
      ['no token', { ...LOCAL, token: undefined }],
      ['an empty token', { ...LOCAL, token: '' }],
      ['no base_url', { ...LOCAL, base_url: undefined }],
      ['a numeric user_id', { ...LOCAL, user_id: 1 }],
      ['no created_at', { ...LOCAL, created_at: undefined }],
    ])('is null for %s', (_what, content) => {
      expect(readCredentials(credentialsFileIn(dataDirWith(content)))).toBeNull();
    });
  });

  describe('resolveConnection', () => {
    it('uses the credentials file of the data dir when nothing else is given: its URL and token', () => {
      const dataDir = dataDirWith(LOCAL);
      expect(resolveConnection({ dataDir }, {})).toEqual({
        baseUrl: 'http://127.0.0.1:8080',
        token: 'ast_owner',
        source: 'credentials',
        baseUrlSource: 'credentials',
        credentialsFile: join(dataDir, 'credentials.json'),
      });
    });

    it('finds the data dir through ASSISTANT_DATA_DIR, then XDG_DATA_HOME', () => {
      const dataDir = dataDirWith(LOCAL);
      expect(resolveConnection({}, { ASSISTANT_DATA_DIR: dataDir }).token).toBe('ast_owner');

      const xdg = join(root, 'xdg');
      mkdirSync(join(xdg, 'assistant'), { recursive: true });
      writeFileSync(
        join(xdg, 'assistant', 'credentials.json'),
        JSON.stringify({ ...LOCAL, token: 'ast_xdg' }),
      );
      expect(resolveConnection({}, { XDG_DATA_HOME: xdg }).token).toBe('ast_xdg');
    });

    it('lets the environment win over the file, and flags win over both', () => {
      const dataDir = dataDirWith(LOCAL);
      const env = { ASSISTANT_BASE_URL: 'https://env.example', ASSISTANT_API_TOKEN: 'ast_env' };

      expect(resolveConnection({ dataDir }, env)).toMatchObject({
        baseUrl: 'https://env.example',
        token: 'ast_env',
        source: 'env',
        baseUrlSource: 'env',
      });
      expect(
        resolveConnection({ dataDir, url: 'https://flag.example/', token: 'ast_flag' }, env),
      ).toMatchObject({
        baseUrl: 'https://flag.example',
        token: 'ast_flag',
        source: 'flag',
        baseUrlSource: 'flag',
      });
      // Mixed: the token from the environment, the URL from the file.
      expect(resolveConnection({ dataDir }, { ASSISTANT_API_TOKEN: 'ast_env' })).toMatchObject({
        baseUrl: 'http://127.0.0.1:8080',
        token: 'ast_env',
        source: 'env',
        baseUrlSource: 'credentials',
      });
    });

    it('defaults the URL to http://127.0.0.1:7747', () => {
      expect(resolveConnection({ dataDir: join(root, 'empty'), token: 'ast_flag' }, {})).toMatchObject({
        baseUrl: DEFAULT_BASE_URL,
        baseUrlSource: 'default',
        source: 'flag',
      });
    });

    it('ignores empty flags and variables', () => {
      const dataDir = dataDirWith(LOCAL);
      expect(
        resolveConnection(
          { dataDir, url: '', token: ' ' },
          { ASSISTANT_BASE_URL: '', ASSISTANT_API_TOKEN: '' },
        ),
      ).toMatchObject({ source: 'credentials', token: 'ast_owner' });
    });

    it("uses the file's token for the file's server under another loopback name", () => {
      const dataDir = dataDirWith(LOCAL);
      expect(resolveConnection({ dataDir, url: 'http://localhost:8080/' }, {})).toMatchObject({
        baseUrl: 'http://localhost:8080',
        token: 'ast_owner',
        source: 'credentials',
        baseUrlSource: 'flag',
      });
    });

    it("never sends the file's token to another server", () => {
      const dataDir = dataDirWith(LOCAL);
      for (const url of ['https://assistant.example.com', 'http://127.0.0.1:7747']) {
        expect(() => resolveConnection({ dataDir, url }, {})).toThrow(MissingTokenError);
        expect(() => resolveConnection({ dataDir }, { ASSISTANT_BASE_URL: url })).toThrow(
          /--token or ASSISTANT_API_TOKEN/,
        );
      }
    });

    it('says how to get a token when there is none', () => {
      const dataDir = join(root, 'empty');
      const error = (() => {
        try {
          resolveConnection({ dataDir }, {});
        } catch (e) {
          return e as MissingTokenError;
        }
        throw new Error('expected an error');
      })();
      expect(error).toBeInstanceOf(MissingTokenError);
      expect(error.credentialsFile).toBe(join(dataDir, 'credentials.json'));
      expect(error.message).toContain('assistant serve');
      expect(error.message).toContain('--token');
      expect(error.message).toContain('ASSISTANT_API_TOKEN');
      expect(error.message).toContain(join(dataDir, 'credentials.json'));
    });

    it('says when the credentials file is broken', () => {
      const dataDir = dataDirWith('{ nope');
      expect(() => resolveConnection({ dataDir }, {})).toThrow(/not valid credentials/);
    });

    it('refuses a URL that is not http(s), naming where it came from', () => {
      expect(() => resolveConnection({ url: 'localhost:7747', token: 't' }, {})).toThrow(InvalidBaseUrlError);
      expect(() => resolveConnection({ token: 't' }, { ASSISTANT_BASE_URL: 'ftp://x' })).toThrow(
        /ASSISTANT_BASE_URL/,
      );
    });
  });
});
