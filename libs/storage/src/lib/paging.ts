import type { IdKind } from '@assistant/contracts';
import { isIdOf } from './ids';
import { StorageError } from './errors';

export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Cursors are opaque to clients: a version tag and the last id of the page, base64url-encoded. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(`v1:${lastId}`, 'utf8').toString('base64url');
}

export function decodeCursor(kind: IdKind, cursor: string): string {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = decoded.startsWith('v1:') ? decoded.slice(3) : '';
  if (!isIdOf(kind, id) || encodeCursor(id) !== cursor) {
    throw StorageError.invalidCursor();
  }
  return id;
}

/** Takes `limit + 1` rows fetched in page order and turns them into a page with its next cursor. */
export function toPage<T extends { id: string }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? encodeCursor(items[items.length - 1].id) : null;
  return { items, nextCursor };
}
