import { parseArgs } from 'node:util';
import { ALL_SCOPES, isScope, type Scope } from '@assistant/contracts';
import { TokenService } from '@assistant/auth';
import { ConfigError } from '../config/server-config';
import { hostedDatabase, openHostedStorage } from './hosted';

export const HOSTED_OPS_USAGE = `Usage: assistant-hosted-ops <command> [options]

Commands:
  migrate                          bring the PostgreSQL schema up to date (run once before starting new API processes)
  create-account --email <email>   create an account and print a personal token for it (shown once)
      [--name <display name>]      defaults to the part of the email before @
      [--scopes <a,b,…>]           defaults to every scope

Environment:
  ASSISTANT_DATABASE_URL           postgres://user@host:5432/database (required)

Examples:
  ASSISTANT_DATABASE_URL=postgres://app@db/assistant assistant-hosted-ops migrate
  assistant-hosted-ops create-account --email ada@example.com --name "Ada Lovelace"`;

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
    const storage = await openHostedStorage(hostedDatabase(env), 'run');
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
    const email = values.email?.trim();
    if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new ConfigError('create-account needs --email <address>');
    const scopes = parseScopes(values.scopes);
    const storage = await openHostedStorage(hostedDatabase(env), 'require-current');
    try {
      if (await storage.users.findByEmail(email)) throw new ConfigError(`an account with the email ${email} already exists`);
      const user = await storage.users.create({ email, displayName: values.name?.trim() || email.split('@')[0] });
      const issued = await new TokenService(storage.tokens).issue({ userId: user.id, kind: 'personal', name: 'Created by operator', scopes });
      out(JSON.stringify({ user_id: user.id, email: user.email, token: issued.secret, scopes }, null, 2));
      return 0;
    } finally {
      await storage.close();
    }
  }
  throw new ConfigError(`unknown command "${command}"; run assistant-hosted-ops --help`);
}

function parseScopes(raw: string | undefined): Scope[] {
  if (!raw) return ALL_SCOPES;
  const scopes = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw new ConfigError(`unknown scopes: ${unknown.join(', ')}`);
  return scopes as Scope[];
}

