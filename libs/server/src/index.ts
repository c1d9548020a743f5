export { AppModule } from './lib/bootstrap/app.module';
export { createHttpApp } from './lib/bootstrap/create-http-app';
export { ApiError } from './lib/http/api-error';
export type { ServerConfig, RateLimitConfig } from './lib/config/server-config';
export { SELF_HOST_SETTINGS, HOSTED_SETTINGS } from './lib/config/settings';
export { configTable, withConfigTable } from './lib/config/config-table';
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
export { hostedConfig } from './lib/config/hosted-config';
export { describeStartupError, closeOnSignals } from './lib/bootstrap/process-lifecycle';
export { createAccount, type CreatedAccount } from './lib/accounts/create-account';
export { type ServerParts } from './lib/bootstrap/server-parts';
export { MemoryQueryEventLog, type QueryEventLog, type QueryRecord } from './lib/queries/query-event-log';
