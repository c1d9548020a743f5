/** Errors of the storage layer, with a stable code the server maps to problem+json. */
export class StorageError extends Error {
  constructor(
    readonly code: 'invalid_cursor' | 'migrations_pending' | 'database_unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}
