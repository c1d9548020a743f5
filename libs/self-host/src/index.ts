export {
  startSelfHost,
  addSelfHostAccount,
  type SelfHostOptions,
  type SelfHostServer,
} from './lib/self-host';
export { issueSelfHostSignInLink, issueAccountSignInLink } from './lib/sign-in-link-command';
export {
  backupSelfHost,
  restoreSelfHost,
  describeBackup,
  describeRestore,
  describeBackupError,
  BackupError,
  BACKUP_FORMAT_VERSION,
  type BackupOptions,
  type BackupResult,
  type RestoreOptions,
  type RestoreResult,
  type BackupManifest,
} from './lib/backup';
