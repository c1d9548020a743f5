import type { QueryEvent } from '@assistant/contracts';
import { interruptedCalls } from './interrupted-calls';

const numbered = (events: Array<Record<string, unknown>>) =>
  events.map((event, i) => ({ ...event, sequence_number: i + 1 }) as unknown as QueryEvent);

describe('interruptedCalls', () => {
  it('completes every call that started and never completed: denied if it waited for an answer, an error if it ran', () => {
    const events = numbered([
      { type: 'query.created', query_id: 'qry_1', discussion_id: 'dsc_1', message_id: 'msg_1', model: 'm' },
      { type: 'tool_call.started', call_id: 'c1', tool: 'web_fetch', arguments: {} },
      { type: 'tool_call.completed', call_id: 'c1', tool: 'web_fetch', status: 'ok', output: {} },
      { type: 'tool_call.started', call_id: 'c2', tool: 'files_write', arguments: {} },
      { type: 'tool_call.awaiting_confirmation', call_id: 'c2', tool: 'files_write', arguments: {} },
      { type: 'tool_call.started', call_id: 'c3', tool: 'files_read', arguments: {} },
    ]);

    expect(interruptedCalls(events)).toEqual([
      expect.objectContaining({
        type: 'tool_call.completed',
        call_id: 'c2',
        tool: 'files_write',
        status: 'denied',
      }),
      expect.objectContaining({
        type: 'tool_call.completed',
        call_id: 'c3',
        tool: 'files_read',
        status: 'error',
      }),
    ]);
  });

  it('has nothing to add to a stream whose calls all completed', () => {
    const events = numbered([
      { type: 'tool_call.started', call_id: 'c1', tool: 'files_write', arguments: {} },
      { type: 'tool_call.awaiting_confirmation', call_id: 'c1', tool: 'files_write', arguments: {} },
      { type: 'tool_call.completed', call_id: 'c1', tool: 'files_write', status: 'denied', error: 'no' },
    ]);
    expect(interruptedCalls(events)).toEqual([]);
  });
});
