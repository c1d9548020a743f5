export {
  AssistantClient,
  type AssistantClientOptions,
  type ListOperationId,
  type OperationMethods,
  type RequestOptions,
} from './lib/client';
export {
  operationPath,
  type JsonOperationId,
  type OperationInput,
  type OperationOutput,
} from './lib/operations';
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
  systemErrorCode,
} from './lib/errors';
// The contract's types that appear in this client's API, so that a user needs only this package.
export type {
  Account,
  ClaimedDevice,
  ClaimPairingCode,
  CreateDiscussion,
  CreateMemory,
  CreateQuery,
  CreateToken,
  CreatedPairingCode,
  CreatedToken,
  Device,
  Discussion,
  ErrorCode,
  ListEnvelope,
  Memory,
  Message,
  Pairing,
  PairingStatus,
  PersonalToken,
  Problem,
  QueryEvent,
  QueryEventOf,
  QueryEventType,
  QueryStatus,
  Scope,
  UpdateMemory,
} from '@assistant/contracts';
