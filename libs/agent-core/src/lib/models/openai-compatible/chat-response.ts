import type {
  JSONObject,
  LanguageModelV3FinishReason,
  LanguageModelV3ResponseMetadata,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { WireContent, WireUsage } from './wire-types';

/** Readings shared by the streamed and the whole answer: finish reason, usage, response metadata, text. */

export function finishReasonOf(raw: string | null | undefined): LanguageModelV3FinishReason {
  switch (raw) {
    case 'stop':
    case 'length':
      return { unified: raw, raw };
    case 'tool_calls':
    case 'function_call':
      return { unified: 'tool-calls', raw };
    case 'content_filter':
      return { unified: 'content-filter', raw };
    default:
      return { unified: 'other', raw: raw ?? undefined };
  }
}

/** Usage in the SDK's V3 shape; all undefined when the server sent none. */
export function usageOf(usage: WireUsage | null | undefined): LanguageModelV3Usage {
  if (!usage) {
    return {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    };
  }
  const input = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    inputTokens: { total: input, noCache: input - cached, cacheRead: cached, cacheWrite: undefined },
    outputTokens: { total: output, text: Math.max(0, output - reasoning), reasoning },
    raw: usage as JSONObject,
  };
}

export function responseMetadataOf(response: {
  id?: string | null;
  created?: number | null;
  model?: string | null;
}): LanguageModelV3ResponseMetadata {
  return {
    id: response.id ?? undefined,
    modelId: response.model ?? undefined,
    timestamp: response.created != null ? new Date(response.created * 1000) : undefined,
  };
}

/** The text of a `content` field: a string as is, or the text parts of an array joined. */
export function textOf(content: WireContent | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) if (part.type === 'text' && typeof part.text === 'string') text += part.text;
  return text;
}
