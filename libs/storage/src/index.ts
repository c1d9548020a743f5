export { openStorage, type Storage, type OpenStorageOptions } from './lib/storage';
export {
  postgresConfigFromUrl,
  sqliteFileIn,
  type DatabaseConfig,
  type Dialect,
} from './lib/data-source-options';
export { StorageError } from './lib/errors';
export { newId, isIdOf } from './lib/ids';
export type { Page, PageRequest } from './lib/paging';
export { UserEntity } from './lib/entities/user.entity';
export { TokenEntity, type StoredTokenKind } from './lib/entities/token.entity';
export { DiscussionEntity } from './lib/entities/discussion.entity';
export { MessageEntity } from './lib/entities/message.entity';
export { MemoryEntity } from './lib/entities/memory.entity';
export type { UsersRepository } from './lib/repositories/users.repository';
export type { TokensRepository, NewToken } from './lib/repositories/tokens.repository';
export type { DiscussionsRepository, NewMessage } from './lib/repositories/discussions.repository';
export type { MemoriesRepository, NewMemory } from './lib/repositories/memories.repository';
export { QueryEntity } from './lib/entities/query.entity';
export type {
  QueriesRepository,
  NewQuery,
  StoredQuery,
  EventToStore,
  QueryEnd,
} from './lib/repositories/queries.repository';
export type { SqlStatement } from './lib/sql';
export { tryLockFile, type ProcessLock } from './lib/process-lock';
export { snapshotSqlite } from './lib/sqlite-snapshot';
export type {
  ConnectionsRepository,
  ConnectionChange,
  NewConnection,
  StoredConnection,
} from './lib/repositories/connections.repository';
export { connectionNameTaken } from './lib/repositories/connections.repository';
export { PairingCodeEntity } from './lib/entities/pairing-code.entity';
export type { PairingCodesRepository, NewPairingCode } from './lib/repositories/pairing-codes.repository';
export type { OAuthRecord, OAuthRecordsRepository } from './lib/repositories/oauth-records.repository';
export type {
  IntegrationActivityEntry,
  IntegrationActivityRepository,
} from './lib/repositories/integration-activity.repository';
export type {
  WebSession,
  NewWebSession,
  WebSessionsRepository,
} from './lib/repositories/web-sessions.repository';
export type { SignInLinksRepository, NewSignInLink } from './lib/repositories/sign-in-links.repository';
export type { SignInFailuresRepository } from './lib/repositories/sign-in-failures.repository';
