import type { CreatedToken, ListEnvelope, Memory, Message, Problem, Query } from '@assistant/contracts';
import { ApiClient } from './http';
import { readStream, sequence, types, type StreamResult } from './sse';
import { startTarget, type Target, type TargetName } from './targets';

function checkStream(result: StreamResult): void {
  expect(result.status).toBe(200);
  expect(sequence(result)).toEqual(result.events.map((_, i) => i + 1));
  expect(result.events.map((e) => e.id)).toEqual(result.events.map((_, i) => String(i + 1)));
  expect(types(result)[0]).toBe('query.created');
  const terminals = types(result).filter((t) =>
    ['query.completed', 'query.failed', 'query.incomplete'].includes(t),
  );
  expect(terminals).toHaveLength(1);
  expect(['query.completed', 'query.failed', 'query.incomplete']).toContain(types(result).at(-1));
}

/** The query stream (SPEC §4) through a listening server, read with eventsource-parser. Same on every target. */
export function defineQuerySuite(targetName: TargetName): void {
  describe(`queries on ${targetName}`, () => {
    let target: Target;
    let api: ApiClient;
    const queries = () => `${target.url}/api/v1/queries`;
    /** A query that runs on after its client stopped reading at its second event: what was read, and its query.created. */
    const runningQuery = async () => {
      const read = await readStream(queries(), {
        token: target.ownerToken,
        body: { text: 'what can you do?' },
        stopAfter: 2,
      });
      const created = read.events[0].event;
      if (created.type !== 'query.created') throw new Error('first event is not query.created');
      return { read, created };
    };

    beforeAll(async () => {
      target = await startTarget(targetName);
      api = new ApiClient(target.url, target.ownerToken);
    });
    afterAll(async () => target?.stop());

    it('streams the answer event by event, numbered 1..n, and stores the discussion', async () => {
      const result = await readStream(queries(), {
        token: target.ownerToken,
        body: { text: "remember that my sister's birthday is on March 3" },
      });
      checkStream(result);
      expect(result.headers.get('x-ratelimit-resource')).toBe('queries');
      expect(types(result)).toEqual(
        expect.arrayContaining([
          'tool_call.started',
          'memory.saved',
          'tool_call.completed',
          'output_text.delta',
          'query.completed',
        ]),
      );
      const deltas = result.events.filter((e) => e.event.type === 'output_text.delta');
      const completed = result.events.at(-1)!;
      // The answer streams: its first piece arrives in an earlier network read than the end of the run.
      expect(deltas[0].chunk).toBeLessThan(completed.chunk);
      const text = deltas.map((e) => (e.event.type === 'output_text.delta' ? e.event.delta : '')).join('');
      expect(completed.event).toMatchObject({ type: 'query.completed', text, finish_reason: 'stop' });
      expect(text).toBe("OK, I'll remember that your sister's birthday is on March 3.");

      const created = result.events[0].event;
      if (created.type !== 'query.created') throw new Error('first event is not query.created');
      const messages = await api.get<ListEnvelope<Message>>(`/discussions/${created.discussion_id}/messages`);
      expect(messages.body.data.map((m) => [m.role, m.text])).toEqual([
        ['user', "remember that my sister's birthday is on March 3"],
        ['assistant', text],
      ]);
      expect(messages.body.data[1]).toMatchObject({ id: created.message_id, query_id: created.query_id });
      expect(messages.body.data[1].tool_calls).toEqual([
        expect.objectContaining({
          tool: 'memory_save',
          status: 'ok',
          arguments: { content: "My sister's birthday is on March 3" },
        }),
      ]);
      const memories = await api.get<ListEnvelope<Memory>>('/memories?q=sister+birthday');
      expect(memories.body.data[0]).toMatchObject({
        source: 'assistant',
        discussion_id: created.discussion_id,
      });

      const answer = await readStream(queries(), {
        token: target.ownerToken,
        body: { text: "When is my sister's birthday?" },
      });
      checkStream(answer);
      expect(answer.events.at(-1)!.event).toMatchObject({ text: "Your sister's birthday is on March 3." });
    });

    it('continues a discussion with its history', async () => {
      const first = await readStream(queries(), { token: target.ownerToken, body: { text: 'hello' } });
      const created = first.events[0].event;
      if (created.type !== 'query.created') throw new Error('first event is not query.created');
      const second = await readStream(queries(), {
        token: target.ownerToken,
        body: { text: 'thanks', discussion_id: created.discussion_id },
      });
      checkStream(second);
      expect(second.events[0].event).toMatchObject({ discussion_id: created.discussion_id });
      const messages = await api.get<ListEnvelope<Message>>(`/discussions/${created.discussion_id}/messages`);
      expect(messages.body.data.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    });

    it('keeps running when the client disconnects after the second event; resuming with Last-Event-ID: 2 gives exactly 3..n', async () => {
      const { read: cut, created } = await runningQuery();
      expect(sequence(cut).slice(0, 2)).toEqual([1, 2]);

      const resumed = await readStream(`${queries()}/${created.query_id}/events`, {
        token: target.ownerToken,
        headers: { 'last-event-id': '2' },
      });
      expect(resumed.status).toBe(200);
      const numbers = sequence(resumed);
      expect(numbers[0]).toBe(3);
      expect(numbers).toEqual(numbers.map((_, i) => i + 3));
      expect(types(resumed).at(-1)).toBe('query.completed');

      const status = await api.get<Query>(`/queries/${created.query_id}`);
      expect(status.body).toMatchObject({ status: 'completed', last_event_id: numbers.at(-1) });
      const messages = await api.get<ListEnvelope<Message>>(`/discussions/${created.discussion_id}/messages`);
      expect(messages.body.data.map((m) => m.role)).toEqual(['user', 'assistant']);

      const replay = await readStream(`${queries()}/${created.query_id}/events?after=0`, {
        token: target.ownerToken,
      });
      checkStream(replay);
      expect(sequence(replay).length).toBe(numbers.at(-1));
      const nothingMore = await readStream(`${queries()}/${created.query_id}/events`, {
        token: target.ownerToken,
        headers: { 'last-event-id': String(numbers.at(-1)) },
      });
      expect(nothingMore.events).toEqual([]);
    });

    it('cancel ends the stream with query.incomplete and stores no half answer', async () => {
      const { created } = await runningQuery();
      const cancelled = await api.post<Query>(`/queries/${created.query_id}/cancel`);
      expect(cancelled.status).toBe(200);
      const rest = await readStream(`${queries()}/${created.query_id}/events?after=0`, {
        token: target.ownerToken,
      });
      checkStream(rest);
      expect(rest.events.at(-1)!.event).toEqual(
        expect.objectContaining({ type: 'query.incomplete', reason: 'cancelled' }),
      );
      expect((await api.get<Query>(`/queries/${created.query_id}`)).body.status).toBe('incomplete');
      const messages = await api.get<ListEnvelope<Message>>(`/discussions/${created.discussion_id}/messages`);
      expect(messages.body.data.map((m) => m.role)).toEqual(['user']);
    });

    it('holds the concurrent-run cap under simultaneous requests', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          readStream(queries(), { token: target.otherToken, body: { text: 'what can you do?' } }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(4);
      expect(statuses.filter((s) => s === 429)).toHaveLength(4);
      for (const refused of results.filter((r) => r.status === 429))
        expect(refused.problem?.code).toBe('rate_limited');
    });

    it('refuses to resume after an event that does not exist yet', async () => {
      const done = await readStream(queries(), { token: target.ownerToken, body: { text: 'hello' } });
      const created = done.events[0].event;
      if (created.type !== 'query.created') throw new Error('first event is not query.created');
      const beyond = await readStream(`${queries()}/${created.query_id}/events`, {
        token: target.ownerToken,
        headers: { 'last-event-id': String(done.events.length + 5) },
      });
      expect(beyond.status).toBe(422);
    });

    it('refuses to resume a running query after an event it has not had, once it has waited for it', async () => {
      const { created } = await runningQuery();
      // While the query runs, the server waits a moment for an event it does not know (another instance may have
      // streamed it already), then refuses: it neither hangs nor streams from nowhere.
      const beyond = await readStream(`${queries()}/${created.query_id}/events`, {
        token: target.ownerToken,
        headers: { 'last-event-id': '100000' },
      });
      expect(beyond.status).toBe(422);
      expect(beyond.problem?.code).toBe('validation_failed');
      await api.post(`/queries/${created.query_id}/cancel`);
    });

    it("answers 404 for another user's query", async () => {
      const mine = await readStream(queries(), { token: target.ownerToken, body: { text: 'hello' } });
      const created = mine.events[0].event;
      if (created.type !== 'query.created') throw new Error('first event is not query.created');
      const other = api.withToken(target.otherToken);
      expect((await other.get<Problem>(`/queries/${created.query_id}`)).status).toBe(404);
      expect((await other.post<Problem>(`/queries/${created.query_id}/cancel`)).status).toBe(404);
      const events = await readStream(`${queries()}/${created.query_id}/events`, {
        token: target.otherToken,
      });
      expect(events.status).toBe(404);
      expect(events.problem?.code).toBe('not_found');
      const intoTheirDiscussion = await readStream(queries(), {
        token: target.otherToken,
        body: { text: 'hello', discussion_id: created.discussion_id },
      });
      expect(intoTheirDiscussion.status).toBe(404);
    });

    it('refuses bad queries with an ordinary problem before any stream', async () => {
      const cases: Array<[unknown, number, string]> = [
        [{}, 422, 'validation_failed'],
        [{ text: '   ' }, 422, 'validation_failed'],
        [{ text: 'x'.repeat(16_001) }, 422, 'validation_failed'],
        [{ text: 'hi', colour: 'red' }, 422, 'validation_failed'],
        [{ text: 'hi', tools: ['email_forward_everything'] }, 422, 'validation_failed'],
        [{ text: 'hi', model: 'gpt-imaginary' }, 422, 'validation_failed'],
        [{ text: 'hi', model: 'ollama:not-configured' }, 422, 'validation_failed'],
        [{ text: 'hi', discussion_id: 'dsc_00000000000000000000000000' }, 404, 'not_found'],
      ];
      for (const [body, status, code] of cases) {
        const res = await readStream(queries(), { token: target.ownerToken, body });
        expect({ body, status: res.status, code: res.problem?.code }).toEqual({ body, status, code });
      }
    });

    it('uses only the tools the token allows', async () => {
      const created = await api.post<CreatedToken>('/tokens', {
        name: 'queries only',
        scopes: ['write:queries'],
      });
      const noScope = await readStream(queries(), { token: created.body.token, body: { text: 'hi' } });
      expect(noScope.status).toBe(200);
      const result = await readStream(queries(), {
        token: created.body.token,
        body: { text: 'remember that the gate code is 4711' },
      });
      checkStream(result);
      expect(types(result)).not.toContain('tool_call.started');
      expect(result.events.at(-1)!.event).toMatchObject({ text: expect.stringContaining('write:memories') });
      expect((await api.get<ListEnvelope<Memory>>('/memories?q=gate')).body.data).toEqual([]);

      const readOnly = await api.post<CreatedToken>('/tokens', { name: 'read', scopes: ['read:memories'] });
      const refused = await readStream(queries(), { token: readOnly.body.token, body: { text: 'hi' } });
      expect(refused.status).toBe(403);
    });

    it("says when the query's own tool list left a tool out, not that a scope is missing", async () => {
      const result = await readStream(queries(), {
        token: target.ownerToken,
        body: { text: 'remember that the shed key is under the pot', tools: ['memory_search'] },
      });
      checkStream(result);
      expect(types(result)).not.toContain('tool_call.started');
      const answer = result.events.at(-1)!.event;
      expect(answer).toMatchObject({
        text: expect.stringContaining("the query's list of tools leaves it out"),
      });
      expect(answer).not.toMatchObject({ text: expect.stringContaining('scope') });
    });

    it('says plainly that it has no tool for a calendar question, and what it can do', async () => {
      const result = await readStream(queries(), {
        token: target.ownerToken,
        body: { text: 'what is on my calendar tomorrow?' },
      });
      checkStream(result);
      expect(types(result)).not.toContain('tool_call.started');
      expect(result.events.at(-1)!.event).toMatchObject({
        type: 'query.completed',
        text: expect.stringMatching(
          /^I have no tool for your calendar on this account.*What I can do here: .*remember what you tell me/,
        ),
      });
    });
  });
}
