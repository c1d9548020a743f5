import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { ChatChunkDecoder } from './chat-chunk-decoder';
import type { WireChunk, WireToolCallDelta } from './wire-types';

/** Shapes the fixture does not send but real servers do: calls without index, an index reused, a cut answer. */
function decode(chunks: WireChunk[], ended = true): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [];
  const decoder = new ChatChunkDecoder((part) => parts.push(part), 'http://model.test/v1/chat/completions');
  for (const chunk of chunks) decoder.chunk(chunk);
  if (ended) decoder.end();
  return parts;
}

const calls = (...toolCalls: WireToolCallDelta[]): WireChunk => ({
  choices: [{ delta: { tool_calls: toolCalls } }],
});
const finished = (reason: string): WireChunk => ({ choices: [{ delta: {}, finish_reason: reason }] });
const toolCallsOf = (parts: LanguageModelV3StreamPart[]) =>
  parts.flatMap((part) => (part.type === 'tool-call' ? [[part.toolCallId, part.toolName, part.input]] : []));

describe('ChatChunkDecoder', () => {
  it('hands on no tool call of an answer that ended without a finish reason, and reports it cut short', () => {
    const parts = decode([
      calls({ index: 0, id: 'call_1', function: { name: 'email_send', arguments: '{"to":"a@b.c"' } }),
    ]);
    expect(toolCallsOf(parts)).toEqual([]);
    expect(parts.map((part) => part.type)).toEqual([
      'response-metadata',
      'tool-input-start',
      'tool-input-delta',
      'error',
      'finish',
    ]);
    expect(parts.at(-1)).toMatchObject({ finishReason: { unified: 'error' } });
  });

  it('continues calls without an index (one call at a time) and starts a new one on a new name', () => {
    const parts = decode([
      calls({ id: 'call_1', function: { name: 'a', arguments: '{"x":' } }),
      calls({ function: { arguments: '1}' } }),
      calls({ id: 'call_2', function: { name: 'b', arguments: '' } }),
      calls({ function: { arguments: '{"y":2}' } }),
      finished('tool_calls'),
    ]);
    expect(toolCallsOf(parts)).toEqual([
      ['call_1', 'a', '{"x":1}'],
      ['call_2', 'b', '{"y":2}'],
    ]);
  });

  it('starts a new call when a server reuses an index with a new id, and gives `{}` to a call without arguments', () => {
    const parts = decode([
      calls({ index: 0, id: 'call_1', function: { name: 'a', arguments: '{"x":1}' } }),
      calls({ index: 0, id: 'call_2', function: { name: 'b' } }),
      finished('tool_calls'),
    ]);
    expect(toolCallsOf(parts)).toEqual([
      ['call_1', 'a', '{"x":1}'],
      ['call_2', 'b', '{}'],
    ]);
  });

  it('gives a call without an id one of its own, the same in every part of that call', () => {
    const parts = decode([
      calls({ index: 0, function: { name: 'a', arguments: '{}' } }),
      finished('tool_calls'),
    ]);
    const ids = new Set(
      parts.flatMap((part) => ('id' in part && part.type.startsWith('tool-input') ? [part.id] : [])),
    );
    expect(ids.size).toBe(1);
    expect(toolCallsOf(parts)).toEqual([[[...ids][0], 'a', '{}']]);
    expect([...ids][0]).toMatch(/^call_/);
  });

  it('starts a new text block with a new id after a reasoning block, and reads text parts of an array content', () => {
    const parts = decode([
      { choices: [{ delta: { content: [{ type: 'text', text: 'A' }] } }] },
      { choices: [{ delta: { reasoning: 'hmm' } }] },
      { choices: [{ delta: { content: 'B' } }] },
      finished('stop'),
    ]);
    expect(
      parts.flatMap((part) =>
        part.type.startsWith('text') || part.type.startsWith('reasoning') ? [part] : [],
      ),
    ).toEqual([
      { type: 'text-start', id: 'txt-0' },
      { type: 'text-delta', id: 'txt-0', delta: 'A' },
      { type: 'text-end', id: 'txt-0' },
      { type: 'reasoning-start', id: 'reasoning-1' },
      { type: 'reasoning-delta', id: 'reasoning-1', delta: 'hmm' },
      { type: 'reasoning-end', id: 'reasoning-1' },
      { type: 'text-start', id: 'txt-2' },
      { type: 'text-delta', id: 'txt-2', delta: 'B' },
      { type: 'text-end', id: 'txt-2' },
    ]);
  });
});
