export { AppModule } from './lib/bootstrap/app.module';
export { createHttpApp } from './lib/bootstrap/create-http-app';
export { MemoryRateLimitStore, type RateLimitStore } from './lib/rate-limit/rate-limit.store';
export { listen, type RunningServer } from './lib/bootstrap/running-server';
export {
  startSelfHost,
  addSelfHostAccount,
  selfHostConfig,
  type SelfHostOptions,
  type SelfHostServer,
} from './lib/self-host/self-host';
export { issueSelfHostSignInLink, issueAccountSignInLink } from './lib/self-host/sign-in-link-command';
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
} from './lib/self-host/backup';
export { describeStartupError, closeOnSignals } from './lib/bootstrap/process-lifecycle';
export { createAccount, type CreatedAccount } from './lib/accounts/create-account';
export { type ServerParts } from './lib/bootstrap/server-parts';
export { MemoryQueryEventLog, type QueryEventLog, type QueryRecord } from './lib/queries/query-event-log';
