// The public surface of @assistant/contracts, name by name: what is not listed here is internal.
export {
  SCOPE_DESCRIPTIONS,
  type Scope,
  ALL_SCOPES,
  FIRST_PARTY_ONLY_SCOPES,
  scopeSchema,
  isScope,
} from './lib/scopes';
export { ID_PREFIXES, type IdKind } from './lib/ids';
export { LIMITS } from './lib/limits';
export {
  rateLimitResourceSchema,
  type RateLimitResource,
  RATE_LIMIT_HEADERS,
  HOSTED_RATE_LIMITS,
} from './lib/rate-limits';
export { ERROR_CODES, type ErrorCode, PROBLEM_TYPE_BASE, problemType } from './lib/error-codes';
export { fieldErrorSchema, type FieldError, problemSchema, type Problem, problemOf } from './lib/problem';
export {
  timestampSchema,
  textSchema,
  lineSchema,
  pageQuerySchema,
  searchablePageQuerySchema,
  type PageQuery,
  type SearchablePageQuery,
  listEnvelopeSchema,
  type ListEnvelope,
} from './lib/common';
export {
  deploymentSchema,
  type Deployment,
  tokenKindSchema,
  type TokenKind,
  accountSchema,
  type Account,
} from './lib/account';
export {
  discussionSchema,
  type Discussion,
  createDiscussionSchema,
  type CreateDiscussion,
  updateDiscussionSchema,
  type UpdateDiscussion,
  messageRoleSchema,
  type MessageRole,
  toolCallRecordSchema,
  type ToolCallRecord,
  messageSchema,
  type Message,
} from './lib/discussions';
export {
  memorySourceSchema,
  type MemorySource,
  memoryContentSchema,
  memorySchema,
  type Memory,
  createMemorySchema,
  type CreateMemory,
  updateMemorySchema,
  type UpdateMemory,
} from './lib/memories';
export {
  personalTokenSchema,
  type PersonalToken,
  createTokenSchema,
  type CreateToken,
  createdTokenSchema,
  type CreatedToken,
} from './lib/tokens';
export { integrationSchema, integrationListSchema, type Integration } from './lib/integrations';
export { protectedResourceMetadataSchema, type ProtectedResourceMetadata } from './lib/oauth';
export {
  deviceSchema,
  type Device,
  deviceListSchema,
  createdPairingCodeSchema,
  type CreatedPairingCode,
  pairingStatusSchema,
  type PairingStatus,
  pairingSchema,
  type Pairing,
  claimPairingCodeSchema,
  type ClaimPairingCode,
  claimedDeviceSchema,
  type ClaimedDevice,
} from './lib/devices';
export {
  createQuerySchema,
  type CreateQuery,
  queryStatusSchema,
  type QueryStatus,
  querySchema,
  type Query,
  queryEventsQuerySchema,
} from './lib/queries';
export {
  queryCreatedEventSchema,
  outputTextDeltaEventSchema,
  toolCallStartedEventSchema,
  toolCallAwaitingConfirmationEventSchema,
  toolCallCompletedEventSchema,
  memorySavedEventSchema,
  queryCompletedEventSchema,
  queryFailedEventSchema,
  queryIncompleteEventSchema,
  queryEventSchema,
  type QueryEvent,
  type QueryEventType,
  type QueryEventOf,
  type QueryEventBody,
} from './lib/events';
export { TERMINAL_EVENT_TYPES, isTerminalEvent } from './lib/event-types';
export {
  type EndpointResponse,
  type EndpointSpec,
  type Endpoint,
  discussionListSchema,
  messageListSchema,
  memoryListSchema,
  tokenListSchema,
  ROUTES,
  type OperationId,
  ENDPOINTS,
  findEndpoint,
} from './lib/endpoints';
export { API_PREFIX, servedPath, pathParams, routePattern, pathMatcher } from './lib/paths';
export { PROTOCOL_ROUTES, MCP_PATH, type ProtocolRoute, type ProtocolName } from './lib/protocols';
export { ROUTE_WIRE, QUERY_EVENT_TYPES } from './lib/wire.generated';
export { buildOpenApiDocument } from './lib/openapi';
export { type ProblemErrorOptions, ProblemError, OperatorError } from './lib/errors';
export { healthSchema, readinessSchema, type Health, type Readiness } from './lib/health';
export { FAMILY_NAME_PATTERN } from './lib/family-name';
export {
  catalogueFamilySchema,
  toolFamilySchema,
  toolInfoSchema,
  toolListSchema,
  type ToolInfo,
} from './lib/tools';
export {
  connectionSchema,
  connectionListSchema,
  createConnectionSchema,
  updateConnectionSchema,
  type Connection,
  type CreateConnection,
  type UpdateConnection,
} from './lib/connections';
export { confirmationSchema, type Confirmation } from './lib/queries';
export { updateAccountSchema, type UpdateAccount } from './lib/account';
