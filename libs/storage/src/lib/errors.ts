import { ProblemError } from '@assistant/contracts';

/**
 * Errors of the storage layer. A cursor the server never gave out is the client's mistake (422, field
 * `cursor`); a database that cannot be reached or is not migrated is `service_unavailable`, and stops a server
 * at start-up with its one-line message.
 */
export class StorageError extends ProblemError {
  static invalidCursor(): StorageError {
    const message = 'not a cursor this server gave out; start again without it';
    return new StorageError('validation_failed', `cursor: ${message}`, {
      errors: [{ field: 'cursor', message }],
    });
  }

  static unavailable(detail: string): StorageError {
    return new StorageError('service_unavailable', detail);
  }
}
