import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { defaultToolsDir, selfHostConfig, serverPackageVersion } from '@assistant/server-kit';
import { dataDirInUse, DATA_DIR_LOCK_FILES, lockDataDir } from '../data-dir-lock';
import { ARCHIVE, entryPlace } from './archive-layout';
import { BackupError, POSTGRES_BACKUP_REFUSAL } from './backup-error';
import { MAX_MANIFEST_BYTES, parseManifest, type BackupManifest } from './manifest';
import { TarFormatError, TYPE } from './tar-format';
import { readTar, type TarEntry } from './tar-reader';

export interface RestoreOptions {
  /** The data directory to fill (`--data-dir`, else ASSISTANT_DATA_DIR, else the default): empty or absent. */
  dataDir?: string;
}

export interface RestoreResult {
  file: string;
  dataDir: string;
  manifest: BackupManifest;
  /** What the operator should know before starting the server on it. */
  notes: string[];
}

/**
 * `assistant restore <file>`: puts a backup (backup.ts) into a data directory that holds nothing yet and that no
 * server uses, for `assistant serve` to start on. The archive is read as it comes; before anything is written, its
 * manifest must be of this format version; every entry must be a file or a folder at a plain relative path among
 * those a backup writes (archive-layout.ts), and the database must match its digest. Entries go into a private
 * folder inside the data directory first and are moved into place only when all of them were good, while the
 * data directory's lock keeps a server from starting on it halfway: a refused archive leaves nothing behind.
 */
export async function restoreSelfHost(
  file: string,
  options: RestoreOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<RestoreResult> {
  const config = selfHostConfig({ dataDir: options.dataDir }, env);
  if (config.database.dialect !== 'sqlite') throw new BackupError(POSTGRES_BACKUP_REFUSAL);
  const { dataDir } = config;
  const archive = resolve(file);
  const archiveStat = await stat(archive).catch(() => null);
  if (!archiveStat?.isFile()) throw new BackupError(`cannot read ${archive}: there is no such file`);
  refuseRunningServer(dataDir);
  refuseData(dataDir);

  const source = createReadStream(archive);
  const bytes = createGunzip();
  // Errors of either stream end the reading of the entries, which reports them.
  pipeline(source, bytes).catch(() => undefined);
  try {
    const entries = readTar(bytes);
    const manifest = await readManifest(entries, archive);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const lock = lockDataDir(dataDir);
    try {
      refuseData(dataDir);
      const staging = await mkdtemp(join(dataDir, '.restoring-'));
      try {
        await extract(entries, staging, manifest, archive);
        for (const name of await readdir(staging)) await rename(join(staging, name), join(dataDir, name));
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    } finally {
      lock.release();
    }
    return { file: archive, dataDir, manifest, notes: notesOn(manifest, config.customToolsDir, dataDir) };
  } catch (error) {
    throw asArchiveError(error, archive);
  } finally {
    source.destroy();
    bytes.destroy();
  }
}

function refuseRunningServer(dataDir: string): void {
  if (dataDirInUse(dataDir)) {
    throw new BackupError(
      `a server is running on ${dataDir}: stop it first; restore fills only a data directory that no server uses and that holds nothing yet`,
    );
  }
}

/** Anything but the lock's own files (a stopped server leaves its lock file) is data that must not be mixed in. */
function refuseData(dataDir: string): void {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new BackupError(`cannot restore into ${dataDir}: ${(error as Error).message}`);
  }
  const data = names.filter((name) => !DATA_DIR_LOCK_FILES.includes(name)).sort();
  if (data.length > 0) {
    const shown =
      data.length > 5 ? `${data.slice(0, 5).join(', ')} and ${data.length - 5} more` : data.join(', ');
    throw new BackupError(
      `${dataDir} is not empty (it holds ${shown}): restore only into an empty or new data directory (--data-dir), so that nothing is mixed in or overwritten`,
    );
  }
}

async function readManifest(entries: AsyncIterator<TarEntry>, archive: string): Promise<BackupManifest> {
  const first = await entries.next();
  if (first.done || first.value.path !== ARCHIVE.manifest || first.value.type !== TYPE.file) {
    throw new BackupError(
      `${archive} is not an Assistant backup: it does not begin with ${ARCHIVE.manifest}`,
    );
  }
  if (first.value.size > MAX_MANIFEST_BYTES) {
    throw new BackupError(`${archive} is not an Assistant backup: its ${ARCHIVE.manifest} is too large`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of first.value.content()) chunks.push(chunk);
  return parseManifest(Buffer.concat(chunks), archive, serverPackageVersion());
}

/** Writes every further entry under `staging`, each checked first; the database is checked against its digest. */
async function extract(
  entries: AsyncIterator<TarEntry>,
  staging: string,
  manifest: BackupManifest,
  archive: string,
): Promise<void> {
  const refuse = (reason: string) => new BackupError(`${archive} cannot be restored: ${reason}`);
  let databaseDigest: string | null = null;
  for (let next = await entries.next(); !next.done; next = await entries.next()) {
    const entry = next.value;
    const place = entryPlace(entry.path, entry.type);
    if ('refused' in place) throw refuse(place.refused);
    const target = join(staging, ...place.segments);
    try {
      if (place.directory) {
        await mkdir(target, { recursive: true, mode: 0o700 });
        continue;
      }
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const isDatabase = entry.path === ARCHIVE.database;
      const hash = createHash('sha256');
      // 'wx': never through anything already there (the staging folder is new, and no entry makes a link).
      await pipeline(
        Readable.from(isDatabase ? hashed(entry.content(), hash) : entry.content()),
        createWriteStream(target, { flags: 'wx', mode: 0o600 }),
      );
      if (isDatabase) databaseDigest = hash.digest('hex');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
        throw refuse(`${JSON.stringify(entry.path)} appears twice, or as both a file and a folder`);
      }
      throw error;
    }
  }
  if (databaseDigest === null) throw refuse(`it holds no database (${ARCHIVE.database})`);
  if (databaseDigest !== manifest.contents.database.sha256) {
    throw refuse('its database is damaged (it does not match the digest in its manifest)');
  }
}

async function* hashed(chunks: AsyncIterable<Buffer>, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    hash.update(chunk);
    yield chunk;
  }
}

function notesOn(manifest: BackupManifest, toolsDir: string, dataDir: string): string[] {
  const notes: string[] = [];
  if (!manifest.contents.secrets_key) {
    notes.push(
      'The backup holds no secrets key: give this server the ASSISTANT_SECRETS_KEY of the one it was taken from, or the connections cannot open their stored secrets.',
    );
  }
  if (manifest.contents.files === null) {
    notes.push("The backup was made without the accounts' folders (--without-files): files/ is empty.");
  }
  if (toolsDir !== defaultToolsDir(dataDir)) {
    notes.push(
      `The custom tools went to ${defaultToolsDir(dataDir)}, but this server loads them from ${toolsDir} (ASSISTANT_TOOLS_DIR).`,
    );
  }
  return notes;
}

/** What went wrong with the archive itself (not gzip, not tar, cut short) as the operator's error. */
function asArchiveError(error: unknown, archive: string): unknown {
  if (error instanceof TarFormatError)
    return new BackupError(`${archive} is not a readable backup: ${error.message}`);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new BackupError(
      `${archive} is not a readable backup: it is not gzip-compressed, or it is damaged`,
    );
  }
  return error;
}
