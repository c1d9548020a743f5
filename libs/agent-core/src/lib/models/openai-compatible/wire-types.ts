/**
 * The parts of the OpenAI Chat Completions wire format this provider reads and writes. Every field the servers
 * may leave out is optional: llama.cpp, vLLM, Ollama and LM Studio each omit different ones. Nothing here is
 * validated per chunk (that is the point of this provider); readers check the few fields they use.
 */

export interface WireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

export interface WireToolCallDelta {
  /** Position of the call in the answer; some servers leave it out when they send one call per chunk. */
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/** `content` is a string on every server we target; a few send an array of typed parts. */
export type WireContent = string | Array<{ type?: string; text?: unknown }> | null;

export interface WireDelta {
  role?: string | null;
  content?: WireContent;
  /** Thinking text: `reasoning_content` (llama.cpp, vLLM, DeepSeek) or `reasoning` (Ollama, gpt-oss servers). */
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: WireToolCallDelta[] | null;
}

export interface WireServerError {
  message?: unknown;
  type?: unknown;
  code?: unknown;
}

export interface WireChunk {
  id?: string | null;
  created?: number | null;
  model?: string | null;
  choices?: Array<{ index?: number; delta?: WireDelta | null; finish_reason?: string | null }> | null;
  usage?: WireUsage | null;
  /** A server that fails mid-answer sends an error object in place of a chunk (llama.cpp, vLLM). */
  error?: WireServerError | null;
}

export interface WireCompletion {
  id?: string | null;
  created?: number | null;
  model?: string | null;
  choices?: Array<{
    message?: {
      content?: WireContent;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: Array<{ id?: string | null; function?: { name?: string; arguments?: string } }> | null;
    } | null;
    finish_reason?: string | null;
  }> | null;
  usage?: WireUsage | null;
}

/** A message of the request body (`messages[]`). */
export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | WireUserPart[] }
  | {
      role: 'assistant';
      content: string | null;
      reasoning_content?: string;
      tool_calls?: WireToolCall[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

export type WireUserPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface WireTool {
  type: 'function';
  function: { name: string; description?: string; parameters: unknown; strict?: boolean };
}

export type WireToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
