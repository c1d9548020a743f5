import type { QueryEvent, QueryEventBody } from '@assistant/contracts';

type CallCompleted = Extract<QueryEventBody, { type: 'tool_call.completed' }>;

/**
 * The `tool_call.completed` events of a stream's calls that never completed, as a cancel tells them, for a run
 * that stopped without telling (its process crashed): each started call ends before the query's terminal event,
 * so that a client never keeps a call open. A call that waited for the user's answer is `denied` (it was not
 * done, as far as anyone answered); one that was running is an `error` (it may or may not have been done).
 */
export function interruptedCalls(events: readonly QueryEvent[]): CallCompleted[] {
  const open = new Map<string, { tool: string; awaiting: boolean }>();
  for (const event of events) {
    if (event.type === 'tool_call.started') open.set(event.call_id, { tool: event.tool, awaiting: false });
    else if (event.type === 'tool_call.awaiting_confirmation')
      open.set(event.call_id, { tool: event.tool, awaiting: true });
    else if (event.type === 'tool_call.completed') open.delete(event.call_id);
  }
  return [...open].map(([callId, { tool, awaiting }]) =>
    awaiting
      ? {
          type: 'tool_call.completed',
          call_id: callId,
          tool,
          status: 'denied',
          error: 'the server stopped while it waited for your answer, so it was not done',
        }
      : {
          type: 'tool_call.completed',
          call_id: callId,
          tool,
          status: 'error',
          error: 'the server stopped while it ran; it may not have been done',
        },
  );
}
