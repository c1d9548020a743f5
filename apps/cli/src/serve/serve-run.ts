// This module is the lazy boundary itself: oclif's command imports it inside run() and bin/run.js's fast path
// requires it only for `serve`. Static here, so that Node's CommonJS loader takes the server's ~2,000 modules
// directly instead of starting through the ESM loader that a dynamic import() uses.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { closeOnSignals, describeStartupError } from '@assistant/server';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { issueSelfHostSignInLink, startSelfHost } from '@assistant/self-host';
import type { ServeFlagValues } from './serve-flags';

/**
 * How `assistant serve` went: what to print on stdout (the server then keeps running, unless it was
 * `--login-link` answered by the server already running), or the line for stderr and the exit code.
 */
export type ServeOutcome = { code: 0; output: string } | { code: 1; message: string };

/**
 * `assistant serve` once its command line is parsed (by oclif or by the fast path): prints a fresh sign-in link
 * when asked and a server already runs on the data directory, otherwise starts the server, stops it on signals,
 * and describes it.
 */
export async function runServe(flags: ServeFlagValues): Promise<ServeOutcome> {
  if (flags['login-link']) {
    let link: string | null;
    try {
      link = await issueSelfHostSignInLink({
        dataDir: flags['data-dir'],
        databaseUrl: flags['database-url'],
      });
    } catch (error) {
      return { code: 1, message: describeStartupError(error) };
    }
    if (link) return { code: 0, output: `Sign in (once, within 15 minutes): ${link}` };
  }
  let server;
  try {
    server = await startSelfHost({
      port: flags.port,
      host: flags.host,
      dataDir: flags['data-dir'],
      databaseUrl: flags['database-url'],
      model: flags.model,
      tools: flags.tools,
    });
  } catch (error) {
    return { code: 1, message: describeStartupError(error) };
  }
  closeOnSignals(server);
  const database = server.database === 'sqlite' ? 'embedded SQLite' : 'PostgreSQL';
  const lines = [
    `Assistant is running at ${server.url}`,
    `  data:        ${server.dataDir} (${database})`,
    `  credentials: ${server.credentialsFile}`,
    `  tools:       ${server.customTools.folder} (${server.customTools.tools.join(', ') || 'no custom tools yet'})`,
  ];
  if (server.createdOwner) lines.push('  First run: created the owner account and its token.');
  else if (server.issuedOwnerToken)
    lines.push('  Wrote a new owner token (the previous one was missing or revoked).');
  lines.push(
    `  Sign in (once, within 15 minutes): ${server.signInLink}`,
    `  Try: curl -H "Authorization: Bearer $(node -p 'require(process.argv[1]).token' ${server.credentialsFile})" ${server.url}/api/v1/me`,
    'Press Ctrl+C to stop.',
  );
  // One write, so that whoever reads the output gets the address and its details together.
  return { code: 0, output: lines.join('\n') };
}
