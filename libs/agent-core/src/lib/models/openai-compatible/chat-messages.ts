import {
  UnsupportedFunctionalityError,
  type LanguageModelV3FilePart,
  type LanguageModelV3Prompt,
  type LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import type { WireMessage, WireToolCall, WireUserPart } from './wire-types';

/**
 * The SDK's prompt as OpenAI chat messages: one message per system/user/assistant message, one `tool` message per
 * tool result. Text and images are what local model servers take; other files are refused with the SDK's error.
 */
export function toChatMessages(prompt: LanguageModelV3Prompt): WireMessage[] {
  const messages: WireMessage[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content });
        break;
      case 'user': {
        const [only] = message.content;
        // A lone text part is sent as a plain string: every server accepts that, not all accept part arrays.
        if (message.content.length === 1 && only?.type === 'text') {
          messages.push({ role: 'user', content: only.text });
        } else {
          messages.push({
            role: 'user',
            content: message.content.map((part) =>
              part.type === 'text' ? { type: 'text', text: part.text } : userFilePart(part),
            ),
          });
        }
        break;
      }
      case 'assistant': {
        let text = '';
        let reasoning = '';
        const toolCalls: WireToolCall[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'reasoning') reasoning += part.text;
          else if (part.type === 'tool-call') {
            toolCalls.push({
              id: part.toolCallId,
              type: 'function',
              function: { name: part.toolName, arguments: JSON.stringify(part.input ?? {}) },
            });
          }
        }
        messages.push({
          role: 'assistant',
          // OpenAI wants null, not "", beside tool calls.
          content: toolCalls.length > 0 && text === '' ? null : text,
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        });
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool-result') continue; // approval answers are the SDK's business, not the model's
          messages.push({
            role: 'tool',
            tool_call_id: part.toolCallId,
            content: toolOutputText(part.output),
          });
        }
        break;
    }
  }
  return messages;
}

function userFilePart(part: LanguageModelV3FilePart): WireUserPart {
  if (part.mediaType.startsWith('image/')) {
    const mediaType = part.mediaType === 'image/*' ? 'image/jpeg' : part.mediaType;
    const url =
      part.data instanceof URL
        ? part.data.toString()
        : `data:${mediaType};base64,${typeof part.data === 'string' ? part.data : Buffer.from(part.data).toString('base64')}`;
    return { type: 'image_url', image_url: { url } };
  }
  if (part.mediaType.startsWith('text/') && !(part.data instanceof URL)) {
    const text =
      typeof part.data === 'string'
        ? Buffer.from(part.data, 'base64').toString('utf8')
        : Buffer.from(part.data).toString('utf8');
    return { type: 'text', text };
  }
  throw new UnsupportedFunctionalityError({ functionality: `file parts of type ${part.mediaType}` });
}

function toolOutputText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'execution-denied':
      return output.reason ?? 'Tool call execution denied.';
    default:
      return JSON.stringify(output.value);
  }
}
