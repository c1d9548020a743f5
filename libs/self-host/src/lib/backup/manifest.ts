import { z } from 'zod';
import { ARCHIVE } from './archive-layout';
import { BackupError } from './backup-error';

export const BACKUP_FORMAT = 'assistant-backup';
/** Raise it whenever an archive of the new format could not be restored by the code of the old one. */
export const BACKUP_FORMAT_VERSION = 1;
/** The manifest is read whole before anything is written; an archive cannot make that unbounded. */
export const MAX_MANIFEST_BYTES = 64 * 1024;

const tally = z.object({ files: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() });

const manifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  format_version: z.literal(BACKUP_FORMAT_VERSION),
  /** The version of @assistant/server that wrote it. */
  server_version: z.string(),
  created_at: z.string(),
  /** What the archive holds besides this manifest. */
  contents: z.object({
    /** The database's snapshot: the moment it was taken, its size and digest (checked when restored). */
    database: z.object({
      entry: z.literal(ARCHIVE.database),
      taken_at: z.string(),
      bytes: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
    }),
    secrets_key: z.boolean(),
    credentials: z.boolean(),
    /** Counted when the backup began; files that changed meanwhile went in as they were when read. */
    tools: tally,
    /** Null when left out (`--without-files`). */
    files: tally.nullable(),
  }),
});

export type BackupManifest = z.infer<typeof manifestSchema>;

/**
 * The manifest of an archive, or a BackupError saying why it is none this code can restore: not JSON, not ours,
 * or a format version other than this one (the message names the version that wrote it).
 */
export function parseManifest(bytes: Buffer, archive: string, thisVersion: string): BackupManifest {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new BackupError(`${archive} is not an Assistant backup: its ${ARCHIVE.manifest} is not JSON`);
  }
  const head = z
    .object({ format: z.literal(BACKUP_FORMAT), format_version: z.number(), server_version: z.unknown() })
    .safeParse(json);
  if (!head.success) {
    throw new BackupError(
      `${archive} is not an Assistant backup: its ${ARCHIVE.manifest} is not one of ours`,
    );
  }
  if (head.data.format_version !== BACKUP_FORMAT_VERSION) {
    const writer = typeof head.data.server_version === 'string' ? head.data.server_version : 'unknown';
    throw new BackupError(
      `${archive} is a backup of format version ${head.data.format_version} (written by Assistant ${writer}); ` +
        `this Assistant (${thisVersion}) restores format version ${BACKUP_FORMAT_VERSION}: restore it with the version that wrote it`,
    );
  }
  const manifest = manifestSchema.safeParse(json);
  if (!manifest.success) {
    throw new BackupError(`${archive} is not an Assistant backup: its ${ARCHIVE.manifest} is incomplete`);
  }
  return manifest.data;
}
