import type { BackupResult } from './backup';
import type { RestoreResult } from './restore';
import type { BackupManifest } from './manifest';

/** What `assistant backup` prints: where the archive is, what it holds, and what did not go in. */
export function describeBackup(result: BackupResult): string {
  const lines = [
    `Backed up ${result.dataDir} to ${result.file} (${size(result.bytes)}), readable by you only:`,
    ...contentLines(result.manifest),
  ];
  if (result.secretsKeyFromEnvironment) {
    lines.push(
      "  The secrets key of this server is ASSISTANT_SECRETS_KEY, which is not in the backup: keep it with it, or a restored server cannot open the connections' secrets.",
    );
  }
  if (result.skipped.length > 0) {
    lines.push(`  Left out (links, special files, or gone meanwhile): ${result.skipped.join(', ')}`);
  }
  if (result.changed.length > 0) {
    lines.push(`  Changed while copied (may be a mix of two versions): ${result.changed.join(', ')}`);
  }
  lines.push(
    "  Keep this file private: it holds the secrets key, which opens every connection's stored passwords, and all your data.",
  );
  return lines.join('\n');
}

/** What `assistant restore` prints: what went where, and how to start the server on it. */
export function describeRestore(result: RestoreResult): string {
  return [
    `Restored ${result.file} into ${result.dataDir}:`,
    ...contentLines(result.manifest),
    ...result.notes.map((note) => `  ${note}`),
    `  Start the server on it: assistant serve --data-dir ${result.dataDir}`,
  ].join('\n');
}

function contentLines({ contents, server_version }: BackupManifest): string[] {
  return [
    `  database:    as of ${contents.database.taken_at} (${size(contents.database.bytes)}, Assistant ${server_version})`,
    `  secrets key: ${contents.secrets_key ? 'yes' : 'no'}`,
    `  credentials: ${contents.credentials ? 'yes' : 'no'}`,
    `  tools:       ${count(contents.tools)}`,
    `  files:       ${contents.files ? count(contents.files) : 'left out (--without-files)'}`,
  ];
}

function count(tally: { files: number; bytes: number }): string {
  return `${tally.files} ${tally.files === 1 ? 'file' : 'files'} (${size(tally.bytes)})`;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
