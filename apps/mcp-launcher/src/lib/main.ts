import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { checkServer } from './check-server';
import { EXIT_FAILURE, LauncherError, parseInvocation, USAGE } from './options';
import { Relay } from './relay';

type Env = Record<string, string | undefined>;

/** The version in this package's package.json (dist/ and src/ both sit one level below it). */
export function launcherVersion(): string {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

function line(text: string): void {
  process.stderr.write(`assistant-mcp: ${text}\n`);
}

/**
 * The `assistant-mcp` program: checks the server and the token once, then relays MCP between stdin/stdout and
 * `<base>/api/v1/mcp` until stdin closes. Stdout carries JSON-RPC and nothing else; every other word goes to stderr,
 * and none of them is the token.
 */
export async function main(
  argv: readonly string[] = process.argv.slice(2),
  env: Env = process.env,
): Promise<void> {
  // Whatever a dependency might log must not corrupt the JSON-RPC stream.
  console.log = console.info = console.debug = console.error;
  process.on('uncaughtException', (error) => {
    line(`internal error: ${error.message}`);
    process.exit(EXIT_FAILURE);
  });
  process.on('unhandledRejection', (reason) => {
    line(`internal error: ${reason instanceof Error ? reason.message : String(reason)}`);
    process.exit(EXIT_FAILURE);
  });

  let invocation: ReturnType<typeof parseInvocation>;
  try {
    invocation = parseInvocation(argv, env);
  } catch (error) {
    if (!(error instanceof LauncherError)) throw error;
    line(error.message);
    process.exit(error.exitCode);
  }
  // Even the usage and the version go to stderr: stdout is the MCP stream's, and nothing else is ever written there.
  if (invocation.kind === 'help') {
    process.stderr.write(USAGE);
    return;
  }
  if (invocation.kind === 'version') {
    process.stderr.write(`${launcherVersion()}\n`);
    return;
  }

  const { baseUrl, token, verbose } = invocation;
  const userAgent = `assistant-mcp/${launcherVersion()}`;
  try {
    await checkServer({ baseUrl, token, userAgent });
  } catch (error) {
    if (!(error instanceof LauncherError)) throw error;
    line(error.message);
    process.exit(error.exitCode);
  }

  const relay = new Relay({
    baseUrl,
    endpoint: new URL(`${baseUrl}/api/v1/mcp`),
    token,
    userAgent,
    downstream: new StdioServerTransport(),
    logger: { info: line, debug: verbose ? line : () => undefined },
    onFatal: (text) => {
      line(text);
      process.exit(EXIT_FAILURE);
    },
  });

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    relay.close().finally(() => process.exit(0));
  };
  // The MCP client ends the launcher by closing its stdin (the stdio transport's shutdown), or by a signal.
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await relay.start();
  if (verbose) line(`relaying MCP to ${baseUrl}/api/v1/mcp`);
}
