import { OperatorError } from '@assistant/contracts';
import {
  assertModelConfigured,
  DEFAULT_RUN_LIMITS,
  ModelUnavailableError,
  type ModelSettings,
  type RunLimits,
} from '@assistant/agent-core';
import type { DeploymentSettings } from './settings';

export interface QueryConfig {
  models: ModelSettings;
  maxConcurrentPerUser: number;
  limits: RunLimits;
  /** How long a side-effecting call waits for the user's answer. */
  confirmationTimeoutMs: number;
  /** The users' IANA time zone, for tools and phrasings that read or write dates. */
  timeZone: string;
  /**
   * The language models' context window in tokens (ASSISTANT_MODEL_CONTEXT_TOKENS): the history a prompt carries
   * is cut to fit it. Absent in a configuration made by hand (tests), agent-core's default applies.
   */
  contextTokens?: number;
  /** The `: ping` comment interval of event streams (SPEC §4: 15 s), so that proxies keep them open. */
  pingIntervalMs: number;
}

/**
 * Models and run limits (SPEC §8). A model that cannot work (unknown provider, no base URL, no API key) stops
 * the server at start-up with one line, not every query later.
 */
export function queryConfigFrom(settings: DeploymentSettings): QueryConfig {
  const models: ModelSettings = {
    defaultModel: settings.ASSISTANT_MODEL,
    extraModels: settings.ASSISTANT_MODELS,
    openAiCompatibleBaseUrl: settings.ASSISTANT_MODEL_BASE_URL,
    openAiCompatibleApiKey: settings.ASSISTANT_MODEL_API_KEY,
    ollamaBaseUrl: settings.ASSISTANT_OLLAMA_URL,
    openAiApiKey: settings.OPENAI_API_KEY,
    anthropicApiKey: settings.ANTHROPIC_API_KEY,
    builtinPacingMs: settings.ASSISTANT_BUILTIN_PACING_MS,
  };
  for (const model of [models.defaultModel, ...(models.extraModels ?? [])]) {
    try {
      assertModelConfigured(model, models);
    } catch (error) {
      if (error instanceof ModelUnavailableError) throw new OperatorError(error.message);
      throw error;
    }
  }
  return {
    models,
    maxConcurrentPerUser: settings.ASSISTANT_MAX_CONCURRENT_QUERIES,
    confirmationTimeoutMs: settings.ASSISTANT_CONFIRMATION_TIMEOUT_SECONDS * 1000,
    timeZone: settings.ASSISTANT_TIMEZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    pingIntervalMs: settings.ASSISTANT_STREAM_PING_SECONDS * 1000,
    contextTokens: settings.ASSISTANT_MODEL_CONTEXT_TOKENS,
    limits: {
      maxSteps: DEFAULT_RUN_LIMITS.maxSteps,
      runTimeoutMs: settings.ASSISTANT_RUN_TIMEOUT_SECONDS * 1000,
      toolTimeoutMs: settings.ASSISTANT_TOOL_TIMEOUT_SECONDS * 1000,
      modelIdleMs: settings.ASSISTANT_MODEL_TIMEOUT_SECONDS * 1000,
    },
  };
}
