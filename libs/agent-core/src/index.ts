// What the other projects use, and nothing more (tools/workspace checks it): the run, its limits, the models.
export {
  runQuery,
  queryCreated,
  toolCallsOf,
  DEFAULT_RUN_LIMITS,
  type ConfirmationOutcome,
  type RunLimits,
} from './lib/run/run-query';
export {
  ModelCatalog,
  assertModelConfigured,
  DEFAULT_OLLAMA_URL,
  type ModelSettings,
} from './lib/models/model-catalog';
export { DEFAULT_CONTEXT_TOKENS } from './lib/run/history-budget';
export { DEFAULT_BUILTIN_PACING_MS } from './lib/models/builtin/builtin-model';
export { PhraseBook } from './lib/models/builtin/phrase-book';
export { Vocabularies } from './lib/models/builtin/vocabulary';
export { ModelUnavailableError } from './lib/errors';
export type { RunAround, ModelCallSummary } from './lib/run/run-around';
