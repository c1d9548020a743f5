import type { LanguageModelV3 } from '@ai-sdk/provider';
import { ProblemError } from '@assistant/contracts';
import type { FamilyLanguage } from '@assistant/tool-kit';
import { builtinModel } from './builtin/builtin-model';
// Light to import: its network modules (undici, eventsource-parser) load with its first request.
import { OpenAiCompatibleChatModel } from './openai-compatible/openai-compatible-chat-model';
import { ModelUnavailableError } from '../errors';

/** How the server's models are configured (SPEC §8): `--model` / `ASSISTANT_MODEL` and their settings. */
export interface ModelSettings {
  /** The model a query gets when it names none: `builtin`, `ollama:<m>`, `openai-compatible:<m>`, `openai:<m>`, `anthropic:<m>`. */
  defaultModel: string;
  /** Further models a query may pick with its `model` field (`builtin` is always available). */
  extraModels?: string[];
  /** Base URL of an OpenAI-compatible server (llama.cpp, vLLM, LM Studio), e.g. http://127.0.0.1:8080/v1 */
  openAiCompatibleBaseUrl?: string;
  openAiCompatibleApiKey?: string;
  /** Ollama's address; its OpenAI-compatible API is under /v1. */
  ollamaBaseUrl?: string;
  openAiApiKey?: string;
  anthropicApiKey?: string;
  /** Pause between the built-in model's streamed words. */
  builtinPacingMs?: number;
}

/** Where Ollama listens unless configured otherwise. */
export const DEFAULT_OLLAMA_URL = 'http://127.0.0.1:11434';

const PROVIDERS = ['builtin', 'ollama', 'openai-compatible', 'openai', 'anthropic'] as const;

export function parseModelName(name: string): { provider: (typeof PROVIDERS)[number]; modelId: string } {
  if (name === 'builtin') return { provider: 'builtin', modelId: 'builtin' };
  const colon = name.indexOf(':');
  const provider = colon > 0 ? name.slice(0, colon) : '';
  const modelId = name.slice(colon + 1);
  if (!(PROVIDERS as readonly string[]).includes(provider) || provider === 'builtin' || !modelId) {
    throw new ModelUnavailableError(
      `unknown model "${name}": use builtin, ollama:<model>, openai-compatible:<model>, openai:<model> or anthropic:<model>`,
    );
  }
  return { provider: provider as (typeof PROVIDERS)[number], modelId };
}

/**
 * Checks a model name and its settings at start-up, so that a typo stops the server instead of every query.
 * Loads no provider: those are imported when a query first needs them, which keeps start-up fast.
 */
export function assertModelConfigured(name: string, settings: ModelSettings): void {
  const { provider } = parseModelName(name);
  if (provider === 'openai-compatible' && !settings.openAiCompatibleBaseUrl) {
    throw new ModelUnavailableError(
      `model "${name}" needs ASSISTANT_MODEL_BASE_URL (e.g. http://127.0.0.1:8080/v1)`,
    );
  }
  if (provider === 'openai' && !settings.openAiApiKey)
    throw new ModelUnavailableError(`model "${name}" needs OPENAI_API_KEY`);
  if (provider === 'anthropic' && !settings.anthropicApiKey) {
    throw new ModelUnavailableError(`model "${name}" needs ANTHROPIC_API_KEY`);
  }
}

export function configuredModels(settings: ModelSettings): string[] {
  return [...new Set(['builtin', settings.defaultModel, ...(settings.extraModels ?? [])])];
}

/**
 * A query named a model this server does not offer. The request is wrong (422 on its `model` field), nothing
 * is down: `model_unavailable` is kept for a configured model that does not answer.
 */
export class UnknownModelError extends ProblemError {
  constructor(name: string, configured: readonly string[]) {
    const message = `"${name}" is not configured on this server; configured: ${configured.join(', ')}`;
    super('validation_failed', `model: ${message}`, { errors: [{ field: 'model', message }] });
  }
}

/**
 * The models of one server: checks a query's choice against the configured ones and builds each model once
 * (a provider is reused by every query that picks it).
 */
export class ModelCatalog {
  private readonly built = new Map<string, Promise<LanguageModelV3>>();

  /** `families`: every tool family the server has, for the built-in model's phrasings. */
  constructor(
    readonly settings: ModelSettings,
    private readonly families: readonly FamilyLanguage[] = [],
  ) {}

  /** The model a query asked for (or the default), if it is one of the configured ones. */
  async pick(requested: string | undefined): Promise<{ name: string; model: LanguageModelV3 }> {
    const name = requested ?? this.settings.defaultModel;
    const configured = configuredModels(this.settings);
    if (!configured.includes(name)) throw new UnknownModelError(name, configured);
    let model = this.built.get(name);
    if (!model) {
      model = createModel(name, this.settings, this.families);
      this.built.set(name, model);
      model.catch(() => this.built.delete(name));
    }
    return { name, model: await model };
  }

  /**
   * Lets go of what the models built so far hold (our OpenAI-compatible provider's keep-alive connections to its
   * model server), so that a server shutting down leaves no socket open. A model picked later is built anew.
   */
  async close(): Promise<void> {
    const models = await Promise.allSettled(this.built.values());
    this.built.clear();
    await Promise.all(
      models.map((model) => (model.status === 'fulfilled' ? closeModel(model.value) : undefined)),
    );
  }
}

/** Closes a model that holds connections of its own (a `close()` method, as OpenAiCompatibleChatModel has). */
function closeModel(model: LanguageModelV3): Promise<void> | undefined {
  const closable = model as LanguageModelV3 & { close?: () => Promise<void> };
  return typeof closable.close === 'function' ? closable.close() : undefined;
}

export async function createModel(
  name: string,
  settings: ModelSettings,
  families: readonly FamilyLanguage[] = [],
): Promise<LanguageModelV3> {
  assertModelConfigured(name, settings);
  const { provider, modelId } = parseModelName(name);
  switch (provider) {
    case 'builtin':
      return builtinModel({ pacingMs: settings.builtinPacingMs, families });
    case 'ollama': {
      const base = (settings.ollamaBaseUrl ?? DEFAULT_OLLAMA_URL).replace(/\/+$/, '');
      return new OpenAiCompatibleChatModel(modelId, { name: 'ollama', baseURL: `${base}/v1` });
    }
    case 'openai-compatible': {
      return new OpenAiCompatibleChatModel(modelId, {
        name: 'openai-compatible',
        baseURL: settings.openAiCompatibleBaseUrl as string,
        apiKey: settings.openAiCompatibleApiKey,
      });
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ apiKey: settings.openAiApiKey }).chat(modelId);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: settings.anthropicApiKey }).languageModel(modelId);
    }
  }
}
