import {
  InvalidResponseDataError,
  JSONParseError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import { randomUUID } from 'node:crypto';
import { ChatEndpoint } from './chat-endpoint';
import { chatParts } from './chat-parts';
import { withPushParts } from '../pushed-parts';
import { buildChatRequest } from './chat-request';
import { finishReasonOf, responseMetadataOf, textOf, usageOf } from './chat-response';
import type { WireCompletion } from './wire-types';

export interface OpenAiCompatibleSettings {
  /** Names the provider (`<name>.chat`) and its entry in `providerOptions`: `ollama`, `openai-compatible`. */
  name: string;
  /** Up to and including `/v1`, e.g. http://127.0.0.1:8080/v1 */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
}

/**
 * A chat model of any server that speaks OpenAI's Chat Completions (llama.cpp, vLLM, Ollama, LM Studio) as the AI
 * SDK's `LanguageModelV3`, on undici and eventsource-parser. It replaces `@ai-sdk/openai-compatible` on the hot
 * path: that provider's fetch, TransformStream layers and zod check of every chunk cost more per token than the
 * rest of a query (issue 10).
 */
export class OpenAiCompatibleChatModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider: string;
  /** No URL is handed to the server as is: the SDK downloads files and sends their data. */
  readonly supportedUrls = {};
  private readonly endpoint: ChatEndpoint;

  constructor(
    readonly modelId: string,
    private readonly settings: OpenAiCompatibleSettings,
  ) {
    this.provider = `${settings.name}.chat`;
    this.endpoint = new ChatEndpoint(settings.baseURL, settings.apiKey);
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const { body, warnings } = buildChatRequest(this.modelId, this.settings.name, options, true);
    const response = await this.endpoint.post(body, options.headers, options.abortSignal);
    const parts = await chatParts(response, {
      url: this.endpoint.url,
      warnings,
      signal: options.abortSignal,
    });
    // The web stream is made only for a caller that reads it (the SDK); the step loop takes the pushed parts.
    return withPushParts(
      {
        get stream() {
          return parts.readable;
        },
        request: { body },
        response: { headers: response.headers },
      },
      parts.push,
    );
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { body, warnings } = buildChatRequest(this.modelId, this.settings.name, options, false);
    const response = await this.endpoint.post(body, options.headers, options.abortSignal);
    const text = await response.body.text();
    let completion: WireCompletion;
    try {
      completion = JSON.parse(text) as WireCompletion;
    } catch (cause) {
      throw new JSONParseError({ text, cause });
    }
    const choice = completion?.choices?.[0];
    if (choice == null) {
      throw new InvalidResponseDataError({ data: text, message: 'the model answered without any choice' });
    }
    const message = choice.message ?? {};
    const content: LanguageModelV3Content[] = [];
    const reasoning = message.reasoning_content ?? message.reasoning;
    if (reasoning) content.push({ type: 'reasoning', text: reasoning });
    const answer = textOf(message.content);
    if (answer) content.push({ type: 'text', text: answer });
    for (const call of message.tool_calls ?? []) {
      content.push({
        type: 'tool-call',
        toolCallId: call.id || `call_${randomUUID()}`,
        toolName: call.function?.name ?? '',
        input: call.function?.arguments || '{}',
      });
    }
    return {
      content,
      finishReason: finishReasonOf(choice.finish_reason),
      usage: usageOf(completion.usage),
      request: { body },
      response: { ...responseMetadataOf(completion), headers: response.headers, body: completion },
      warnings,
    };
  }

  /** Closes the connections kept alive to the server (the model is unusable afterwards). */
  close(): Promise<void> {
    return this.endpoint.close();
  }
}
