export { withConfigTable } from './lib/config/config-table';
export { hostedDatabase, hostedConfig } from './lib/config/hosted-config';
export { type McpLimits, mcpLimitsOf } from './lib/config/mcp-limits';
export { openStorageFor } from './lib/config/open-storage';
export { readSettings, warnOnStderr } from './lib/config/read-settings';
export { databaseFileIn, type RememberedDatabaseFile } from './lib/config/remembered-database';
export { SECRETS_KEY_FILE, secretsKeyOf } from './lib/config/secrets-key';
export { selfHostConfig, defaultToolsDir } from './lib/config/self-host-config';
export { type RateLimitConfig, type ServerConfig, type OAuthClientName } from './lib/config/server-config';
export { type SelfHostFlags, SELF_HOST_SETTINGS, HOSTED_SETTINGS } from './lib/config/settings';
export { ApiError } from './lib/http/api-error';
export { isEventStreamRoute } from './lib/http/event-stream-routes';
export {
  type HttpTimeouts,
  HTTP_TIMEOUTS,
  serverTimeoutOptions,
  exemptEventStreamsFromIdleTimeout,
} from './lib/http/http-timeouts';
export { LAZY_SCHEMA_COMPILERS } from './lib/http/lazy-schema-compilers';
export {
  safeUrl,
  loggerOptions,
  requestLogController,
  lazyChildLogger,
  logRequests,
  PinoNestLogger,
  terminalLogDestination,
  prettyLogLine,
} from './lib/http/logging';
export { serverPackageVersion } from './lib/http/package-version';
export { ProblemFilter, problemFor } from './lib/http/problem.filter';
export { listeningUrl, PublicAddress } from './lib/http/public-address';
export { type ProblemAnswer, replyWithProblem, SEND_JSON } from './lib/http/reply-problem';
export { newRequestId, requestId } from './lib/http/request-id';
export { EVERY_RESPONSE_HEADERS, prepareReply } from './lib/http/response-headers';
export { formText, formList, CSRF_FIELD } from './lib/pages/forms';
export {
  type PageProvider,
  SitePages,
  type ProfileSectionContext,
  type ProfileSectionProvider,
  type ProfileSectionPlace,
  ProfileSection,
  contributionsOf,
} from './lib/pages/page-contributions';
export {
  csrfField,
  buttonForm,
  timeOf,
  messagePage,
  notFoundPage,
  itemTable,
  pathWithId,
  scopeList,
} from './lib/pages/page-parts';
export { PAGE_PATHS, CREDENTIAL_PAGE_ROUTES, type PageRoute, paramOf } from './lib/pages/page-route';
export { type Html, html, markup, PAGE_HEADERS, renderPage, pageDocument } from './lib/pages/page';
export { servePages } from './lib/pages/serve-pages';
export { type SignedInAccount, whenSignedIn, signedInPage } from './lib/pages/signed-in';
export { STYLESHEET_PATH, STYLESHEET } from './lib/pages/stylesheet';
export {
  type ClusterMessages,
  type ClusterTopic,
  type ClusterBus,
  SingleProcessBus,
  CLUSTER_BUS,
} from './lib/ports/cluster-bus';
export {
  type AnswerResult,
  type ConfirmationExchange,
  SINGLE_PROCESS_CONFIRMATIONS,
  CONFIRMATION_EXCHANGE,
} from './lib/ports/confirmation-exchange';
export { STORAGE, SERVER_CONFIG } from './lib/ports/core-tokens';
export { type DevicePairing, DEVICE_PAIRING } from './lib/ports/device-pairing';
export {
  type QueryRecord,
  type NewQueryRecord,
  type QueryEventListener,
  type EndOptions,
  type OpenOptions,
  type QueryEventLog,
  newRunnerId,
  statusAfter,
  endStatusOf,
} from './lib/ports/query-event-log';
export { type ReadinessCheck, NotReady } from './lib/ports/readiness-check';
export { type RefreshLock, REFRESH_LOCK, MemoryRefreshLock } from './lib/ports/refresh-lock';
export { InjectRepository, repositoryProviders } from './lib/ports/repositories';
export { type ReleaseRunSlot, type RunSlots, runCapReached, RUN_SLOTS } from './lib/ports/run-slots';
export { type RunnerLiveness, NO_RUNNER_LIVENESS, RUNNER_LIVENESS } from './lib/ports/runner-liveness';
export { type RunTools, TOOL_CATALOGUE, type ToolCatalogue } from './lib/ports/tool-catalogue';
export { Route, RouteBody, RouteQuery, routesOutsideApi } from './lib/routing/route.decorator';
export { RoutingModule } from './lib/routing/routing.module';
export {
  PROVIDER_SESSION_COOKIE,
  PROVIDER_INTERACTION_COOKIE,
  ProviderSessions,
} from './lib/sessions/provider-sessions';
export { rememberReturnTo, takeReturnTo } from './lib/sessions/return-to-cookie';
export { sessionCookieName, readCookie, pageCookie, appendSetCookie } from './lib/sessions/session-cookie';
export { WebSessionsModule } from './lib/sessions/web-sessions.module';
export { WebSessions } from './lib/sessions/web-sessions';
export { traceHttpRequests } from './lib/tracing/http-tracing.hook';
export { traceQueryRun, traceToolCall } from './lib/tracing/run-tracing';
export { startTracing, stopTracing } from './lib/tracing/start-tracing';
export { tracedStorage } from './lib/tracing/storage-tracing';
export { type Tracing, tracing, markFailed } from './lib/tracing/tracing';
