import { parseArgs } from 'node:util';
import { OperatorError } from '@assistant/contracts';
import { createAccount, parseScopeList } from '@assistant/server/hosting';
import { listClients, registerClient } from '@assistant/oauth';
import { HOSTED_SETTINGS, readSettings, hostedDatabase, openStorageFor } from '@assistant/server-kit';

export const HOSTED_OPS_USAGE = `Usage: assistant-hosted-ops <command> [options]

Commands:
  migrate                          bring the PostgreSQL schema up to date (run once before starting new API processes)
      [--check]                    change nothing: exit 0 when the schema is up to date, 1 when migrations are pending
  create-account --email <email>   create an account and print a personal token for it (shown once), and, with
                                   ASSISTANT_PUBLIC_URL set, a link for its person to choose a password (7 days)
      [--name <display name>]      defaults to the part of the email before @
      [--scopes <a,b,…>]           defaults to every scope
  register-client --name <name> --redirect-uri <uri> [--redirect-uri <uri>…]
                                   pre-register a third-party application (OAuth, PKCE, public client); prints its client_id
  list-clients                     the registered applications (by an operator or by themselves)

Environment:
  ASSISTANT_DATABASE_URL           postgres://user@host:5432/database (required)
  ASSISTANT_PUBLIC_URL             the service's public address, for create-account's set_password_url

Examples:
  ASSISTANT_DATABASE_URL=postgres://app@db/assistant assistant-hosted-ops migrate
  assistant-hosted-ops migrate --check || echo "run the migrations before this deploy"
  assistant-hosted-ops create-account --email ada@example.com --name "Ada Lovelace"
  assistant-hosted-ops register-client --name "Bakery bot" --redirect-uri https://bot.example.com/oauth/callback`;

/** Operator commands of the hosted service. Writes results to `out` and returns the exit code. */
export async function runHostedOps(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(HOSTED_OPS_USAGE);
    return command ? 0 : 2;
  }
  if (command === 'migrate') {
    const { values } = parseArgs({ args: rest, options: { check: { type: 'boolean' } }, strict: true });
    // --check opens the database as the API does, which refuses pending migrations (a OperatorError: exit 1).
    const storage = await openStorageFor(hostedDatabase(env), values.check ? 'require-current' : 'run');
    await storage.close();
    out('the database schema is up to date');
    return 0;
  }
  if (command === 'create-account') {
    const { values } = parseArgs({
      args: rest,
      options: { email: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' } },
      strict: true,
    });
    const scopes = parseScopeList(values.scopes);
    const storage = await openStorageFor(hostedDatabase(env), 'require-current');
    try {
      // The same setting the API reads: the link must open on the address people reach the service at.
      const { ASSISTANT_PUBLIC_URL } = readSettings(
        HOSTED_SETTINGS.pick({ ASSISTANT_PUBLIC_URL: true }),
        env,
      );
      const account = await createAccount(storage, {
        email: values.email,
        displayName: values.name,
        scopes,
        ...(ASSISTANT_PUBLIC_URL && { passwordLinkBaseUrl: ASSISTANT_PUBLIC_URL }),
      });
      out(JSON.stringify(account, null, 2));
      return 0;
    } finally {
      await storage.close();
    }
  }
  if (command === 'register-client' || command === 'list-clients') {
    const { values } = parseArgs({
      args: rest,
      options: { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true } },
      strict: true,
    });
    const storage = await openStorageFor(hostedDatabase(env), 'require-current');
    try {
      const result =
        command === 'register-client'
          ? await registerClient(storage, { name: values.name, redirectUris: values['redirect-uri'] ?? [] })
          : await listClients(storage);
      out(JSON.stringify(result, null, 2));
      return 0;
    } finally {
      await storage.close();
    }
  }
  throw new OperatorError(`unknown command "${command}"; run assistant-hosted-ops --help`);
}
