import type { QueryEvent } from '@assistant/contracts';
import { ENDED_QUERY_KEPT_MS, MemoryQueryEventLog } from './query-event-log';

const record = {
  id: 'qry_1',
  userId: 'usr_1',
  discussionId: 'dsc_1',
  messageId: 'msg_1',
  model: 'builtin',
  owner: 'token:tok_1',
  createdAt: new Date(),
};

describe('MemoryQueryEventLog', () => {
  afterEach(() => jest.useRealTimers());

  it('numbers events, replays after an id, then delivers live ones, and ends at the terminal event', async () => {
    const log = new MemoryQueryEventLog();
    await log.open(record);
    log.append('qry_1', { type: 'output_text.delta', delta: 'a' });
    log.append('qry_1', { type: 'output_text.delta', delta: 'b' });
    const seen: QueryEvent[] = [];
    await log.subscribe('qry_1', 1, (event) => seen.push(event));
    expect(() => log.append('qry_1', { type: 'query.incomplete', reason: 'cancelled' })).toThrow(/end\(\)/);
    await log.end('qry_1', { type: 'query.incomplete', reason: 'cancelled' });
    expect(seen.map((e) => e.sequence_number)).toEqual([2, 3]);
    expect(await log.get('qry_1')).toMatchObject({
      status: 'incomplete',
      endedAt: expect.any(Date),
      lastEventId: 3,
    });
    expect(() => log.append('qry_1', { type: 'output_text.delta', delta: 'late' })).toThrow(/already ended/);
    expect(await log.end('qry_1', { type: 'query.incomplete', reason: 'timeout' })).toBeUndefined();
    expect((await log.events('qry_1', 2)).map((e) => e.type)).toEqual(['query.incomplete']);
    log.close();
  });

  it('keeps a finished query for ENDED_QUERY_KEPT_MS (the database beneath keeps it longer), then forgets it', async () => {
    jest.useFakeTimers();
    const log = new MemoryQueryEventLog();
    await log.open(record);
    await log.end('qry_1', { type: 'query.incomplete', reason: 'cancelled' });
    jest.advanceTimersByTime(ENDED_QUERY_KEPT_MS - 1);
    expect(await log.events('qry_1')).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(await log.get('qry_1')).toBeUndefined();
    log.close();
  });
});
