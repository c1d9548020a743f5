export {
  connectTool,
  defineTool,
  parseToolInput,
  ToolInputError,
  type ConnectedTool,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolContext,
  type ToolNotice,
} from './lib/define-tool';
export {
  defineFamily,
  servesTool,
  ConnectionTestError,
  TOOL_FAMILIES,
  type DefaultConnection,
  type Deployment,
  type Driver,
  type DriverEnvironment,
  type FamilyLanguage,
  type ProviderDefinition,
  type ToolFamily,
  type ToolFamilyName,
} from './lib/family';
export type { BuiltinAction, PhraseContext, PhraseRule } from './lib/phrases';
export { asSentence, capitalise, joinAnd, toSecondPerson } from './lib/person';
export { allowedTools, withheldTools, type WithheldTool } from './lib/tool-registry';
export { addressPolicy, connectionPolicy, unmapped, type AddressPolicy } from './lib/address-policy';
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
