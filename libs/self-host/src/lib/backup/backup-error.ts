import { OperatorError } from '@assistant/contracts';

/** A backup that cannot be made, or an archive that cannot be restored, for a reason the operator can act on. */
export class BackupError extends OperatorError {}

/** One line for stderr: the reason alone for the operator's cases, the stack for a bug. */
export function describeBackupError(error: unknown): string {
  if (error instanceof OperatorError) return `assistant: ${error.message}`;
  return `assistant: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
}

/** A self-hosted server on PostgreSQL is backed up with PostgreSQL's own tools (docs/operations.md, "Backups"). */
export const POSTGRES_BACKUP_REFUSAL =
  'this server keeps its data in PostgreSQL (ASSISTANT_DATABASE_URL): back up the database with pg_dump and restore it with pg_restore, ' +
  'and keep its secrets key (secrets.key of the data directory, or ASSISTANT_SECRETS_KEY) with the dump; docs/operations.md, "Backups", says how';
