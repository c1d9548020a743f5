import { parseArgs } from 'node:util';
import { normalizeBaseUrl } from '@assistant/client';
import { DEFAULT_BASE_URL } from '@assistant/client/local';

/** Exit statuses: 0 on a clean end (stdin closed), 1 when the server or the token fails, 2 for a wrong command line. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A reason to stop before relaying anything: one line for stderr (without the `assistant-mcp: ` prefix) and a status. */
export class LauncherError extends Error {
  override name = 'LauncherError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
  }
}

export const USAGE = `assistant-mcp: MCP over stdio for any MCP client, relaying to an Assistant server's /api/v1/mcp.

Usage:
  assistant-mcp --local            the server on this machine (${DEFAULT_BASE_URL}, started with \`assistant serve\`)
  assistant-mcp --url <url>        another server, e.g. https://assistant.example.com
  assistant-mcp                    the server in ASSISTANT_BASE_URL

Options:
  --local          Use ${DEFAULT_BASE_URL}.
  --url <url>      Use this server (overrides ASSISTANT_BASE_URL).
  --verbose        Log connections and reconnections on stderr.
  -h, --help       Show this help.
  -v, --version    Show the version.

Environment:
  ASSISTANT_API_TOKEN   The API token (required). Create one on /profile. There is no flag for it:
                        flags show in process lists.
  ASSISTANT_BASE_URL    The server when neither --local nor --url is given.

Only JSON-RPC goes to stdout; logs go to stderr. A missing or refused token, or a server that does not
answer, exits with status 1 and one line on stderr; a wrong command line exits with status 2.

Examples:
  ASSISTANT_API_TOKEN=asp_… npx -y @assistant/mcp --local
  ASSISTANT_API_TOKEN=asp_… ASSISTANT_BASE_URL=https://assistant.example.com npx -y @assistant/mcp

  An MCP client's configuration (Claude Desktop, Cursor, VS Code):
  {"command": "npx", "args": ["-y", "@assistant/mcp", "--local"], "env": {"ASSISTANT_API_TOKEN": "asp_…"}}
`;

export type Invocation =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'relay'; baseUrl: string; token: string; verbose: boolean };

type Env = Record<string, string | undefined>;

/**
 * Reads the command line and the environment. Throws LauncherError with the one line to print when they do not
 * make a usable invocation. Never puts the token into a message.
 */
export function parseInvocation(argv: readonly string[], env: Env = process.env): Invocation {
  let values: { local?: boolean; url?: string; verbose?: boolean; help?: boolean; version?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        local: { type: 'boolean' },
        url: { type: 'string' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    if (argv.some((arg) => arg === '--token' || arg.startsWith('--token='))) {
      throw new LauncherError(
        'there is no --token flag (flags show in process lists); set ASSISTANT_API_TOKEN in the environment instead',
        EXIT_USAGE,
      );
    }
    const reason = error instanceof Error ? error.message.split('\n')[0]!.replace(/\.$/, '') : String(error);
    throw new LauncherError(`${reason}; see assistant-mcp --help`, EXIT_USAGE);
  }

  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  if (values.local && values.url !== undefined) {
    throw new LauncherError('give either --local or --url, not both', EXIT_USAGE);
  }

  const fromEnv = nonEmpty(env['ASSISTANT_BASE_URL']);
  const [rawUrl, source] = values.local
    ? [DEFAULT_BASE_URL, '--local']
    : values.url !== undefined
      ? [values.url, '--url']
      : fromEnv !== undefined
        ? [fromEnv, 'ASSISTANT_BASE_URL']
        : [undefined, undefined];
  if (rawUrl === undefined) {
    throw new LauncherError(
      'no server given: add --local for the one on this machine, or set ASSISTANT_BASE_URL (or --url)',
      EXIT_USAGE,
    );
  }
  let baseUrl: string;
  try {
    baseUrl = normalizeBaseUrl(rawUrl);
  } catch (error) {
    throw new LauncherError(
      `${source}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT_USAGE,
    );
  }

  const token = nonEmpty(env['ASSISTANT_API_TOKEN']);
  if (token === undefined) {
    throw new LauncherError('ASSISTANT_API_TOKEN is not set; create a token on /profile');
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new LauncherError(
      'ASSISTANT_API_TOKEN is not one word of printable ASCII characters; copy the token again from /profile',
    );
  }
  return { kind: 'relay', baseUrl, token, verbose: values.verbose ?? false };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
