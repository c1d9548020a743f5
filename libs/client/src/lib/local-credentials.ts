import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AssistantClientError } from './errors';
import { normalizeBaseUrl } from './transport';

/**
 * How a program on this machine finds the local server and its token (SPEC §8). `assistant serve`
 * writes `<data-dir>/credentials.json`; `assistant chat`, the MCP launcher and scripts read it. The
 * server and the clients use these same functions, so they agree on where the file is.
 */

/** Where `assistant serve` listens unless told otherwise. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:7747';

/** The content of `<data-dir>/credentials.json`. */
export interface Credentials {
  base_url: string;
  token: string;
  user_id: string;
  created_at: string;
}

type Env = Record<string, string | undefined>;

/** `$XDG_DATA_HOME/assistant`, or `~/.local/share/assistant` when XDG_DATA_HOME is unset or empty. */
export function defaultDataDir(env: Env = process.env): string {
  const xdg = nonEmpty(env['XDG_DATA_HOME']);
  return join(xdg ?? join(homedir(), '.local', 'share'), 'assistant');
}

/** The data directory in use: the flag, else ASSISTANT_DATA_DIR, else the default; absolute. */
export function resolveDataDir(dataDir?: string | undefined, env: Env = process.env): string {
  return resolve(nonEmpty(dataDir) ?? nonEmpty(env['ASSISTANT_DATA_DIR']) ?? defaultDataDir(env));
}

export function credentialsFileIn(dataDir: string): string {
  return join(dataDir, 'credentials.json');
}

/** The credentials in `file`, or null when it is missing, unreadable or not the expected JSON. */
export function readCredentials(file: string): Credentials | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const fields = parsed as Record<string, unknown>;
  const { base_url, token, user_id, created_at } = fields;
  if (
    typeof base_url !== 'string' ||
    base_url === '' ||
    typeof token !== 'string' ||
    token === '' ||
    typeof user_id !== 'string' ||
    typeof created_at !== 'string'
  ) {
    return null;
  }
  return { base_url, token, user_id, created_at };
}

export interface ConnectionFlags {
  /** `--url` */
  url?: string | undefined;
  /** `--token` */
  token?: string | undefined;
  /** `--data-dir`: whose credentials file to read. */
  dataDir?: string | undefined;
}

/** Where a setting came from. */
export type SettingSource = 'flag' | 'env' | 'credentials' | 'default';

export interface ResolvedConnection {
  /** Normalized: no trailing slash, no `/api/v1`. */
  baseUrl: string;
  token: string;
  /** Where the token came from. */
  source: Exclude<SettingSource, 'default'>;
  /** Where the URL came from. */
  baseUrlSource: SettingSource;
  /** The credentials file that was consulted (whether or not it was used). */
  credentialsFile: string;
}

/** No token could be found; the message says how to give one. */
export class MissingTokenError extends AssistantClientError {
  override name = 'MissingTokenError';
  readonly credentialsFile: string;

  constructor(message: string, credentialsFile: string) {
    super(message);
    this.credentialsFile = credentialsFile;
  }
}

/** The URL given by flag, environment or credentials file is not an http(s) URL. */
export class InvalidBaseUrlError extends AssistantClientError {
  override name = 'InvalidBaseUrlError';
}

/**
 * Which server to call and with which token. Flags win, then ASSISTANT_BASE_URL / ASSISTANT_API_TOKEN,
 * then the credentials file of the data directory (--data-dir, else ASSISTANT_DATA_DIR, else the
 * default); the URL defaults to http://127.0.0.1:7747.
 *
 * The token of the credentials file is the local server's owner token: it is only used for the server
 * the file names (loopback names count as one), never sent to another URL given by flag or environment.
 */
export function resolveConnection(flags: ConnectionFlags = {}, env: Env = process.env): ResolvedConnection {
  const credentialsFile = credentialsFileIn(resolveDataDir(flags.dataDir, env));

  const flagUrl = nonEmpty(flags.url);
  const envUrl = nonEmpty(env['ASSISTANT_BASE_URL']);
  const flagToken = nonEmpty(flags.token);
  const envToken = nonEmpty(env['ASSISTANT_API_TOKEN']);

  const explicitUrl = flagUrl ?? envUrl;
  const explicitToken = flagToken ?? envToken;
  const credentials =
    explicitUrl !== undefined && explicitToken !== undefined ? null : readCredentials(credentialsFile);

  let baseUrl: string;
  let baseUrlSource: SettingSource;
  if (flagUrl !== undefined) {
    baseUrl = checkedUrl(flagUrl, '--url');
    baseUrlSource = 'flag';
  } else if (envUrl !== undefined) {
    baseUrl = checkedUrl(envUrl, 'ASSISTANT_BASE_URL');
    baseUrlSource = 'env';
  } else if (credentials) {
    baseUrl = checkedUrl(credentials.base_url, credentialsFile);
    baseUrlSource = 'credentials';
  } else {
    baseUrl = DEFAULT_BASE_URL;
    baseUrlSource = 'default';
  }

  if (flagToken !== undefined)
    return { baseUrl, token: flagToken, source: 'flag', baseUrlSource, credentialsFile };
  if (envToken !== undefined)
    return { baseUrl, token: envToken, source: 'env', baseUrlSource, credentialsFile };

  const howToGiveOne = 'give one with --token or ASSISTANT_API_TOKEN';
  if (credentials) {
    if (sameServer(baseUrl, credentials.base_url)) {
      return { baseUrl, token: credentials.token, source: 'credentials', baseUrlSource, credentialsFile };
    }
    throw new MissingTokenError(
      `no API token for ${baseUrl}: the credentials file ${credentialsFile} is for ${credentials.base_url}; ${howToGiveOne}`,
      credentialsFile,
    );
  }
  const problem = existsSync(credentialsFile)
    ? `${credentialsFile} is unreadable or not valid credentials`
    : `${credentialsFile} does not exist`;
  throw new MissingTokenError(
    `no API token: ${problem}. Start the local server once with \`assistant serve\` (it writes that file), or ${howToGiveOne}`,
    credentialsFile,
  );
}

function checkedUrl(url: string, from: string): string {
  try {
    return normalizeBaseUrl(url);
  } catch (error) {
    throw new InvalidBaseUrlError(`invalid server URL from ${from}: ${(error as Error).message}`);
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function sameServer(a: string, b: string): boolean {
  let left: URL;
  let right: URL;
  try {
    left = new URL(a);
    right = new URL(normalizeBaseUrl(b));
  } catch {
    return false;
  }
  const host = (url: URL) => (LOOPBACK.has(url.hostname) ? 'loopback' : url.hostname);
  return (
    left.protocol === right.protocol &&
    host(left) === host(right) &&
    left.port === right.port &&
    left.pathname.replace(/\/+$/, '') === right.pathname.replace(/\/+$/, '')
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
