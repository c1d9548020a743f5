import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { snapshotSqlite } from '@assistant/storage';
import { selfHostConfig, serverPackageVersion } from '@assistant/server-kit';
import { ARCHIVE, entryPlace } from './archive-layout';
import { BackupError, POSTGRES_BACKUP_REFUSAL } from './backup-error';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, type BackupManifest } from './manifest';
import { tarBlocks, type TarSource, type TarWriteReport } from './tar-writer';
import { TYPE } from './tar-format';

export interface BackupOptions {
  /** The server's data directory (`--data-dir`, else ASSISTANT_DATA_DIR, else the default). */
  dataDir?: string;
  /** The server's custom tools folder, when not `<data-dir>/tools` (`--tools`, else ASSISTANT_TOOLS_DIR). */
  tools?: string;
  /** Leave the accounts' folders (`<data-dir>/files`) out. */
  withoutFiles?: boolean;
}

export interface BackupResult {
  /** The archive, absolute. */
  file: string;
  bytes: number;
  dataDir: string;
  toolsDir: string;
  manifest: BackupManifest;
  /** Links, FIFOs and the like in the folders, and files gone before their turn: not in the archive. */
  skipped: string[];
  /** Files that changed while they were copied: in the archive, but perhaps as a mix of two versions. */
  changed: string[];
  /** The server's key is ASSISTANT_SECRETS_KEY, which the archive does not hold. */
  secretsKeyFromEnvironment: boolean;
}

/**
 * `assistant backup <file>`: one gzip-compressed tar file with everything a self-hosted server needs to be
 * brought back — a consistent snapshot of its database (taken while it runs: see snapshotSqlite), its secrets
 * key, its credentials file, its custom tools and, unless left out, the accounts' folders — and a manifest first.
 * The archive is written whole or not at all (a temporary file, then renamed), readable by its owner only.
 */
export async function backupSelfHost(
  file: string,
  options: BackupOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<BackupResult> {
  const config = selfHostConfig({ dataDir: options.dataDir, tools: options.tools }, env);
  if (config.database.dialect !== 'sqlite') throw new BackupError(POSTGRES_BACKUP_REFUSAL);
  const { dataDir } = config;
  const database = config.database.file;
  if (!(await isFile(database))) {
    throw new BackupError(
      `${dataDir} holds no database (${ARCHIVE.database}): nothing to back up. Is it your server's data directory (--data-dir)? ` +
        'A server on PostgreSQL (--database-url) is backed up with pg_dump: docs/operations.md, "Backups"',
    );
  }
  const target = resolve(file);
  await refuseTargetInside(target, dataDir);

  // The snapshot is as large as the database: beside the archive (where there is room for it), in a folder of
  // its own, which only its owner can enter since SQLite creates the file with the process's umask.
  let work: string;
  try {
    work = await mkdtemp(join(dirname(target), '.assistant-backup-'));
  } catch (error) {
    throw new BackupError(`cannot write ${target}: ${(error as Error).message}`);
  }
  try {
    const snapshot = join(work, ARCHIVE.database);
    const takenAt = new Date();
    snapshotSqlite(database, snapshot);
    const secretsKey = await readFileIfAny(join(dataDir, ARCHIVE.secretsKey));
    const credentials = await readFileIfAny(join(dataDir, ARCHIVE.credentials));
    const tools = await listFolder(config.customToolsDir, ARCHIVE.tools);
    const files = options.withoutFiles ? null : await listFolder(join(dataDir, ARCHIVE.files), ARCHIVE.files);

    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      server_version: serverPackageVersion(),
      created_at: new Date().toISOString(),
      contents: {
        database: {
          entry: ARCHIVE.database,
          taken_at: takenAt.toISOString(),
          bytes: (await stat(snapshot)).size,
          sha256: await sha256Of(snapshot),
        },
        secrets_key: secretsKey !== null,
        credentials: credentials !== null,
        tools: tools.tally,
        files: files ? files.tally : null,
      },
    };
    const sources: TarSource[] = [
      {
        type: 'file',
        path: ARCHIVE.manifest,
        content: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`),
      },
      { type: 'file', path: ARCHIVE.database, from: snapshot },
      ...(secretsKey ? [{ type: 'file' as const, path: ARCHIVE.secretsKey, content: secretsKey }] : []),
      ...(credentials ? [{ type: 'file' as const, path: ARCHIVE.credentials, content: credentials }] : []),
      ...tools.sources,
      ...(files?.sources ?? []),
    ];
    const report: TarWriteReport = { skipped: [...tools.skipped, ...(files?.skipped ?? [])], changed: [] };
    await writeArchive(target, tarBlocks(sources, report));
    return {
      file: target,
      bytes: (await stat(target)).size,
      dataDir,
      toolsDir: config.customToolsDir,
      manifest,
      skipped: report.skipped,
      changed: report.changed,
      secretsKeyFromEnvironment: config.secretsKey !== undefined,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A backup kept in the data directory dies with it, and would copy itself into the next one. */
async function refuseTargetInside(target: string, dataDir: string): Promise<void> {
  const real = async (path: string) => realpath(path).catch(() => path);
  if (
    within(target, dataDir) ||
    within(join(await real(dirname(target)), basename(target)), await real(dataDir))
  ) {
    throw new BackupError(`write the backup outside the data directory ${dataDir}: it would be lost with it`);
  }
}

function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

interface ListedFolder {
  sources: TarSource[];
  tally: { files: number; bytes: number };
  skipped: string[];
}

/**
 * A folder and everything in it as archive entries under `prefix`, listed now and read when written. Links are
 * not followed (they could lead anywhere on the machine) and, like FIFOs and devices, are left out, as is a name
 * the restore would refuse (one with a backslash).
 */
async function listFolder(root: string, prefix: string): Promise<ListedFolder> {
  const listed: ListedFolder = { sources: [], tally: { files: 0, bytes: 0 }, skipped: [] };
  if (!(await isDirectory(root))) return listed;
  const visit = async (folder: string, path: string): Promise<void> => {
    listed.sources.push({ type: 'directory', path });
    const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const from = join(folder, entry.name);
      const entryPath = `${path}/${entry.name}`;
      const kind = entry.isDirectory() ? TYPE.directory : entry.isFile() ? TYPE.file : null;
      if (kind === null || 'refused' in entryPlace(entryPath, kind)) {
        listed.skipped.push(entryPath);
      } else if (kind === TYPE.directory) {
        await visit(from, entryPath);
      } else {
        listed.sources.push({ type: 'file', path: entryPath, from });
        listed.tally.files++;
        listed.tally.bytes += (await lstat(from).catch(() => ({ size: 0 }))).size;
      }
    }
  };
  await visit(root, prefix);
  return listed;
}

async function writeArchive(target: string, blocks: AsyncIterable<Buffer>): Promise<void> {
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    await pipeline(
      Readable.from(blocks),
      createGzip(),
      createWriteStream(temporary, { flags: 'wx', mode: 0o600 }),
    );
    await chmod(temporary, 0o600);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new BackupError(`cannot write ${target}: ${(error as Error).message}`);
  }
}

async function readFileIfAny(path: string): Promise<Buffer | null> {
  return (await isFile(path)) ? readFile(path) : null;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
