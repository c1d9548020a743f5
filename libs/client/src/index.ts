export {
  AssistantClient,
  type AssistantClientOptions,
  type PageParams,
  type QueryInfo,
  type RequestOptions,
  type SearchParams,
} from './lib/client';
export {
  DEFAULT_RECONNECT,
  type AttachOptions,
  type ReconnectOptions,
  type StreamOptions,
} from './lib/query-stream';
export { paginate } from './lib/paginate';
export { normalizeBaseUrl } from './lib/transport';
export {
  ApiRequestError,
  AssistantClientError,
  ConnectionError,
  ProtocolError,
  StreamInterruptedError,
} from './lib/errors';
export {
  DEFAULT_BASE_URL,
  InvalidBaseUrlError,
  MissingTokenError,
  credentialsFileIn,
  defaultDataDir,
  readCredentials,
  resolveConnection,
  resolveDataDir,
  type ConnectionFlags,
  type Credentials,
  type ResolvedConnection,
  type SettingSource,
} from './lib/local-credentials';
// The contract's types that appear in this client's API, so that a user needs only this package.
export type {
  Account,
  CreateDiscussion,
  CreateMemory,
  CreateQuery,
  CreateToken,
  CreatedToken,
  Discussion,
  ErrorCode,
  ListEnvelope,
  Memory,
  Message,
  PersonalToken,
  Problem,
  QueryEvent,
  QueryEventOf,
  QueryEventType,
  QueryStatus,
  Scope,
  UpdateMemory,
} from '@assistant/contracts';
