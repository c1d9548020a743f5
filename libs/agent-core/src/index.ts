export {
  runQuery,
  toolCallsOf,
  DEFAULT_RUN_LIMITS,
  type RunInput,
  type RunLimits,
  type RunEventSink,
} from './lib/run/run-query';
export { systemPrompt } from './lib/run/system-prompt';
export {
  ModelCatalog,
  createModel,
  parseModelName,
  configuredModels,
  assertModelConfigured,
  type ModelSettings,
} from './lib/models/model-catalog';
export { builtinModel, type BuiltinModelOptions } from './lib/models/builtin/builtin-model';
export {
  PHRASES,
  understand,
  CAPABILITIES,
  NOT_UNDERSTOOD,
  type PhraseRule,
  type BuiltinAction,
} from './lib/models/builtin/phrases';
export { answerFromToolResult } from './lib/models/builtin/answers';
export { toSecondPerson } from './lib/models/builtin/person';
export { ModelUnavailableError } from './lib/errors';
