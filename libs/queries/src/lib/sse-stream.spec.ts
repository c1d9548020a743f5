import type { QueryEvent } from '@assistant/contracts';
import { frameOf } from './sse-stream';

describe('frameOf', () => {
  afterEach(() => jest.restoreAllMocks());

  it('frames an event as id, event and data lines', () => {
    const event = { type: 'output_text.delta', delta: 'Hi', sequence_number: 7 } as QueryEvent;
    expect(frameOf(event)).toBe(`id: 7\nevent: output_text.delta\ndata: ${JSON.stringify(event)}\n\n`);
  });

  it('serializes an event once for all the streams that send it in turn', () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    const event = { type: 'output_text.delta', delta: 'once', sequence_number: 1 } as QueryEvent;
    const next = { type: 'output_text.delta', delta: 'then', sequence_number: 2 } as QueryEvent;
    expect(frameOf(event)).toBe(frameOf(event));
    expect(frameOf(next)).toContain('"then"');
    expect(stringify).toHaveBeenCalledTimes(2);
  });
});
