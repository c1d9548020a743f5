import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  SharedV3Warning,
} from '@ai-sdk/provider';
import { toChatMessages } from './chat-messages';
import type { WireMessage, WireTool, WireToolChoice } from './wire-types';

/** The JSON body of `POST /chat/completions`; fields left undefined are dropped by JSON.stringify. */
export interface ChatRequestBody {
  model: string;
  messages: WireMessage[];
  stream: boolean;
  stream_options?: { include_usage: true };
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  stop?: string[];
  seed?: number;
  response_format?: { type: 'json_object' };
  tools?: WireTool[];
  tool_choice?: WireToolChoice;
  [extra: string]: unknown;
}

/**
 * The request for one call. `providerName`'s entry in `providerOptions` is copied into the body as is, so a
 * caller can pass server-specific fields (llama.cpp's `cache_prompt`, vLLM's `top_k`…) without a setting here.
 */
export function buildChatRequest(
  modelId: string,
  providerName: string,
  options: LanguageModelV3CallOptions,
  stream: boolean,
): { body: ChatRequestBody; warnings: SharedV3Warning[] } {
  const warnings: SharedV3Warning[] = [];
  if (options.topK != null) warnings.push({ type: 'unsupported', feature: 'topK' });
  if (options.responseFormat?.type === 'json' && options.responseFormat.schema != null) {
    warnings.push({
      type: 'unsupported',
      feature: 'responseFormat',
      details: 'a JSON schema is not sent; the server is only asked for JSON',
    });
  }
  const functionTools: LanguageModelV3FunctionTool[] = [];
  for (const tool of options.tools ?? []) {
    if (tool.type === 'function') functionTools.push(tool);
    else warnings.push({ type: 'unsupported', feature: `provider-defined tool ${tool.id}` });
  }
  const hasTools = functionTools.length > 0;
  const body: ChatRequestBody = {
    ...options.providerOptions?.[providerName],
    model: modelId,
    messages: toChatMessages(options.prompt),
    stream,
    // Usage comes in a last chunk only when asked for (OpenAI, vLLM, llama.cpp, Ollama all honour this).
    stream_options: stream ? { include_usage: true } : undefined,
    max_tokens: options.maxOutputTokens,
    temperature: options.temperature,
    top_p: options.topP,
    frequency_penalty: options.frequencyPenalty,
    presence_penalty: options.presencePenalty,
    stop: options.stopSequences,
    seed: options.seed,
    response_format: options.responseFormat?.type === 'json' ? { type: 'json_object' } : undefined,
    tools: hasTools ? functionTools.map(toWireTool) : undefined,
    tool_choice: hasTools ? toWireToolChoice(options.toolChoice) : undefined,
  };
  return { body, warnings };
}

function toWireTool(tool: LanguageModelV3FunctionTool): WireTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      ...(tool.strict != null ? { strict: tool.strict } : {}),
    },
  };
}

function toWireToolChoice(choice: LanguageModelV3CallOptions['toolChoice']): WireToolChoice | undefined {
  if (!choice) return undefined;
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.toolName } } : choice.type;
}
