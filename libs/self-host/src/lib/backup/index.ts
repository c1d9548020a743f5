export { backupSelfHost, type BackupOptions, type BackupResult } from './backup';
export { restoreSelfHost, type RestoreOptions, type RestoreResult } from './restore';
export { describeBackup, describeRestore } from './backup-summary';
export { BackupError, describeBackupError } from './backup-error';
export { BACKUP_FORMAT_VERSION, type BackupManifest } from './manifest';
