import { chmodSync, existsSync } from 'node:fs';
import { OperatorError } from '@assistant/contracts';
import {
  openStorage,
  StorageError,
  type DatabaseConfig,
  type OpenStorageOptions,
  type Storage,
} from '@assistant/storage';

/**
 * Opens the database for a composition root. What the operator can fix (unreachable server, pending migrations)
 * becomes one OperatorError line; an embedded database is made readable by its owner only, whatever the
 * permissions of the directory it sits in.
 */
export async function openStorageFor(
  database: DatabaseConfig,
  migrations: OpenStorageOptions['migrations'],
): Promise<Storage> {
  let storage: Storage;
  try {
    storage = await openStorage(database, { migrations });
  } catch (error) {
    throw error instanceof StorageError ? new OperatorError(error.message) : error;
  }
  if (database.dialect === 'sqlite') {
    for (const file of [database.file, `${database.file}-wal`, `${database.file}-shm`]) {
      if (existsSync(file)) chmodSync(file, 0o600);
    }
  }
  return storage;
}
