import {
  assertModelConfigured,
  DEFAULT_RUN_LIMITS,
  ModelUnavailableError,
  type ModelSettings,
  type RunLimits,
} from '@assistant/agent-core';
import { HOSTED_RATE_LIMITS } from '@assistant/contracts';
import { ConfigError, positiveInt } from './server-config';

export interface QueryConfig {
  models: ModelSettings;
  maxConcurrentPerUser: number;
  limits: RunLimits;
  /** The `: ping` comment interval of event streams (SPEC §4: 15 s), so that proxies keep them open. */
  pingIntervalMs: number;
}

/**
 * Models and run limits from `--model` and the environment (SPEC §8). A model that cannot work (unknown
 * provider, no base URL, no API key) stops the server at start-up with one line, not every query later.
 */
export function queryConfigFromEnv(env: NodeJS.ProcessEnv, flags: { model?: string } = {}): QueryConfig {
  const models: ModelSettings = {
    defaultModel: flags.model ?? env.ASSISTANT_MODEL ?? 'builtin',
    extraModels: (env.ASSISTANT_MODELS ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean),
    openAiCompatibleBaseUrl: env.ASSISTANT_MODEL_BASE_URL || undefined,
    openAiCompatibleApiKey: env.ASSISTANT_MODEL_API_KEY || undefined,
    ollamaBaseUrl: env.ASSISTANT_OLLAMA_URL || undefined,
    openAiApiKey: env.OPENAI_API_KEY || undefined,
    anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
    builtinPacingMs:
      env.ASSISTANT_BUILTIN_PACING_MS === undefined
        ? undefined
        : Number(env.ASSISTANT_BUILTIN_PACING_MS) || 0,
  };
  for (const model of [models.defaultModel, ...(models.extraModels ?? [])]) {
    try {
      assertModelConfigured(model, models);
    } catch (error) {
      if (error instanceof ModelUnavailableError) throw new ConfigError(error.message);
      throw error;
    }
  }
  const seconds = (name: string, fallbackMs: number) =>
    positiveInt(name, env[name], fallbackMs / 1000) * 1000;
  return {
    models,
    maxConcurrentPerUser: positiveInt(
      'ASSISTANT_MAX_CONCURRENT_QUERIES',
      env.ASSISTANT_MAX_CONCURRENT_QUERIES,
      HOSTED_RATE_LIMITS.concurrentQueriesPerUser,
    ),
    pingIntervalMs: seconds('ASSISTANT_STREAM_PING_SECONDS', 15_000),
    limits: {
      maxSteps: DEFAULT_RUN_LIMITS.maxSteps,
      runTimeoutMs: seconds('ASSISTANT_RUN_TIMEOUT_SECONDS', DEFAULT_RUN_LIMITS.runTimeoutMs),
      toolTimeoutMs: seconds('ASSISTANT_TOOL_TIMEOUT_SECONDS', DEFAULT_RUN_LIMITS.toolTimeoutMs),
      modelIdleMs: seconds('ASSISTANT_MODEL_TIMEOUT_SECONDS', DEFAULT_RUN_LIMITS.modelIdleMs),
    },
  };
}
