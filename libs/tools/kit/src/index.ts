export {
  connectTool,
  customToolScope,
  defineTool,
  isToolDefinition,
  parseToolInput,
  sideEffectsScopeProblem,
  TOOL_DEFINITION,
  ToolInputError,
  type ConnectedTool,
  type CustomToolSpec,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolContext,
  type ToolNotice,
  type ToolSpec,
} from './lib/define-tool';
/** Zod, for a custom tool module's input schema: the same version the server reads schemas with. */
export { z } from 'zod';
export {
  defineFamily,
  servesTool,
  ConnectionTestError,
  familyInstructions,
  type DefaultConnection,
  type Deployment,
  type Driver,
  type DriverEnvironment,
  type FamilyLanguage,
  type ProviderDefinition,
  type ToolFamily,
} from './lib/family';
export type { BuiltinAction, PhraseContext, PhraseRule } from './lib/phrases';
export type {
  FamilyIntents,
  Intent,
  IntentContext,
  Learned,
  SlotKind,
  Slots,
  VocabularyKind,
  WhenRange,
} from './lib/intents';
export {
  cleanSlot,
  IntentMatcher,
  misreadExamples,
  readRequest,
  SHARED_RULES,
  sayable,
  Speller,
  STOP_WORDS,
  type IntentGroup,
  type IntentMatch,
} from './lib/templates';
export { asSentence, capitalise, joinAnd, toSecondPerson } from './lib/person';
export { allowedTools, withheldTools, type WithheldTool } from './lib/tool-registry';
export { callTool, ToolCallTimeout } from './lib/call-tool';
export { addressPolicy, connectionPolicy, unmapped, type AddressPolicy } from './lib/address-policy';
export { loginChanges, loginNeutral } from './lib/login-settings';
export {
  AddressRefusedError,
  assertHostAllowed,
  connectionAgents,
  connectionFetch,
  pinHost,
  policyLookup,
  type PinnedHost,
  type Resolver,
} from './lib/pinning';
export {
  chooseConnection,
  connectionArgument,
  CONNECTION_ARGUMENT,
  takeConnectionArgument,
  withConnectionArgument,
  type NamedConnection,
} from './lib/connection-choice';
export {
  connectionFields,
  fieldLabel,
  readConnectionForm,
  type ConnectionField,
  type FormValues,
} from './lib/connection-fields';
export {
  authorizationRequest,
  defineOAuthClient,
  redeemAuthorizationCode,
  revokeGrant,
  type AuthorizationRequest,
  type GrantedTokens,
  type OAuthClientCredentials,
  type OAuthClientDefinition,
  type OAuthProtocol,
} from './lib/oauth/oauth-client';
export { googleOAuthClient, microsoftOAuthClient } from './lib/oauth/oauth-clients';
export { OAuthEndpointError } from './lib/oauth/token-endpoint';
export {
  accessTokensOf,
  NeedsReauthError,
  refreshingTokenSource,
  type AccessTokenSource,
  type OAuthDriverEnvironment,
  type RefreshedTokens,
  type RefreshingTokenSourceOptions,
} from './lib/oauth/token-source';
export { dayRange, instantOf, isoInZone, offsetMinutes, wallTime, type Wall } from './lib/zoned-time';
