import {
  ENDPOINTS,
  type Account,
  type CreatedToken,
  type Discussion,
  type ListEnvelope,
  type Memory,
  type Problem,
} from '@assistant/contracts';
import { ApiClient, type ApiResponse } from './http';
import { startTarget, type Target, type TargetName } from './targets';

async function collectPages<T extends { id: string }>(api: ApiClient, path: string, limit: number) {
  const seen: T[] = [];
  const pageSizes: number[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const url = `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page: ApiResponse<ListEnvelope<T>> = await api.get<ListEnvelope<T>>(url);
    expect(page.status).toBe(200);
    seen.push(...page.body.data);
    pageSizes.push(page.body.data.length);
    cursor = page.body.next_cursor;
  } while (cursor);
  return { seen, pageSizes };
}

/**
 * The /api/v1 suite. It runs unchanged against every target: the self-hosted server on SQLite and on PostgreSQL,
 * and the hosted API on PostgreSQL. Same requests, same answers.
 */
export function defineApiSuite(targetName: TargetName): void {
  describe(`API v1 on ${targetName}`, () => {
    let target: Target;
    let owner: ApiClient;
    let other: ApiClient;
    let anonymous: ApiClient;

    beforeAll(async () => {
      target = await startTarget(targetName);
      owner = new ApiClient(target.url, target.ownerToken);
      other = owner.withToken(target.otherToken);
      anonymous = owner.withToken(null);
    });
    afterAll(async () => {
      await target?.stop();
    });

    async function tokenWith(scopes: string[]): Promise<string> {
      const created = await owner.post<CreatedToken>('/tokens', { name: `only ${scopes.join(' ')}`, scopes });
      expect(created.status).toBe(201);
      return created.body.token;
    }

    describe('authentication and scopes', () => {
      it('GET /me returns the account and the calling token', async () => {
        const me = await owner.get<Account>('/me');
        expect(me.status).toBe(200);
        expect(me.body).toMatchObject({ deployment: target.deployment, token: { kind: 'personal' } });
        expect(me.body.id).toMatch(/^usr_/);
        expect(me.body.token.scopes).toContain('read:account');
      });

      it('refuses a request without a token with 401 and a Bearer challenge', async () => {
        const res = await anonymous.get<Problem>('/me');
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('invalid_token');
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="assistant", error="invalid_token"');
      });

      it('refuses malformed, made-up and tampered tokens with 401', async () => {
        const tampered = target.ownerToken.slice(0, -1) + (target.ownerToken.endsWith('a') ? 'b' : 'a');
        for (const token of ['nonsense', 'asp_' + 'a'.repeat(36), tampered]) {
          const res = await anonymous.get<Problem>('/me', { token });
          expect(res.status).toBe(401);
          expect(res.body.code).toBe('invalid_token');
        }
        const basic = await anonymous.get<Problem>('/me', {
          headers: { authorization: 'Basic dXNlcjpwYXNz' },
        });
        expect(basic.status).toBe(401);
      });

      it('refuses a token in the query string', async () => {
        const res = await anonymous.get<Problem>(`/me?access_token=${target.ownerToken}`);
        expect(res.status).toBe(401);
        expect(res.body.detail).toMatch(/query string/);
      });

      it('refuses a token in the body', async () => {
        const mine = await owner.post<Discussion>('/discussions', { title: 'Keep me' });
        const res = await anonymous.request<Problem>('DELETE', `/discussions/${mine.body.id}`, {
          json: { access_token: target.ownerToken },
        });
        expect(res.status).toBe(401);
        expect((await owner.get(`/discussions/${mine.body.id}`)).status).toBe(200);
      });

      it('refuses a revoked token with 401 on its next use', async () => {
        const created = await owner.post<CreatedToken>('/tokens', {
          name: 'to revoke',
          scopes: ['read:account'],
        });
        expect((await owner.get('/me', { token: created.body.token })).status).toBe(200);
        expect((await owner.delete(`/tokens/${created.body.id}`)).status).toBe(204);
        const res = await owner.get<Problem>('/me', { token: created.body.token });
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('invalid_token');
      });

      it('answers 403 insufficient_scope naming the scope for a token with too few scopes', async () => {
        const token = await tokenWith(['read:memories']);
        const res = await owner.get<Problem>('/me', { token });
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('insufficient_scope');
        expect(res.headers.get('www-authenticate')).toBe(
          'Bearer realm="assistant", error="insufficient_scope", scope="read:account"',
        );
        expect((await owner.get('/memories', { token })).status).toBe(200);
        expect((await owner.post('/memories', { content: 'x' }, { token })).status).toBe(403);
      });

      it('guards every endpoint of the catalogue with exactly the scope the OpenAPI document names', async () => {
        const token = await tokenWith(['read:web']);
        for (const endpoint of ENDPOINTS.filter((e) => e.scope)) {
          const path = endpoint.path.replace(/\{\w+\}/g, 'dsc_00000000000000000000000000');
          const res = await owner.request<Problem>(endpoint.method, path, {
            token,
            ...(endpoint.body ? { json: {} } : {}),
          });
          expect({ endpoint: endpoint.operationId, status: res.status }).toEqual({
            endpoint: endpoint.operationId,
            status: 403,
          });
          expect(res.headers.get('www-authenticate')).toContain(`scope="${endpoint.scope}"`);
        }
      });

      it('shows a token secret once and lists tokens without secrets', async () => {
        const created = await owner.post<CreatedToken>('/tokens', {
          name: 'listed',
          scopes: ['read:account'],
        });
        expect(created.body.token).toMatch(/^asp_[0-9A-Za-z]{36}$/);
        const list = await owner.get<ListEnvelope<Record<string, unknown>>>('/tokens');
        const listed = list.body.data.find((t) => t.id === created.body.id);
        expect(listed).toMatchObject({ name: 'listed', scopes: ['read:account'] });
        expect(JSON.stringify(list.body)).not.toContain(created.body.token);
        expect(listed?.token_prefix).toBe(created.body.token.slice(0, 8));
      });

      it('never mints a token with scopes the calling token does not hold', async () => {
        const narrow = await tokenWith(['write:account']);
        const res = await owner.post<Problem>(
          '/tokens',
          { name: 'wider', scopes: ['read:memories'] },
          { token: narrow },
        );
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual([
          { field: 'scopes', message: 'read:memories is not held by the token making this call' },
        ]);
      });

      it('never mints a token that outlives the calling one: its expiry is capped and shown', async () => {
        const expires = new Date(Date.now() + 2 * 60_000).toISOString();
        const parent = await owner.post<CreatedToken>('/tokens', {
          name: 'short-lived',
          scopes: ['write:account'],
          expires_at: expires,
        });
        const child = await owner.post<CreatedToken>(
          '/tokens',
          { name: 'endless', scopes: ['write:account'] },
          { token: parent.body.token },
        );
        expect(child.status).toBe(201);
        expect(child.body.expires_at).toBe(expires);
      });

      it('refuses personal-token management to a token without write:account', async () => {
        const token = await tokenWith(['read:account']);
        const res = await owner.post<Problem>(
          '/tokens',
          { name: 'escalate', scopes: ['write:account'] },
          { token },
        );
        expect(res.status).toBe(403);
      });
    });

    describe('discussions', () => {
      it('creates, reads, renames, lists and deletes a discussion', async () => {
        const created = await owner.post<Discussion>('/discussions', { title: 'Planning the garden' });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({ title: 'Planning the garden', message_count: 0 });
        expect(created.body.id).toMatch(/^dsc_/);

        expect((await owner.get<Discussion>(`/discussions/${created.body.id}`)).body).toEqual(created.body);
        const renamed = await owner.patch<Discussion>(`/discussions/${created.body.id}`, {
          title: 'Garden: spring',
        });
        expect(renamed.status).toBe(200);
        expect(renamed.body.title).toBe('Garden: spring');

        const found = await owner.get<ListEnvelope<Discussion>>('/discussions?q=garden');
        expect(found.body.data.map((d) => d.id)).toContain(created.body.id);
        const notFound = await owner.get<ListEnvelope<Discussion>>('/discussions?q=kitchen');
        expect(notFound.body.data.map((d) => d.id)).not.toContain(created.body.id);

        const messages = await owner.get<ListEnvelope<unknown>>(`/discussions/${created.body.id}/messages`);
        expect(messages.body).toEqual({ data: [], next_cursor: null });

        expect((await owner.delete(`/discussions/${created.body.id}`)).status).toBe(204);
        expect((await owner.get<Problem>(`/discussions/${created.body.id}`)).status).toBe(404);
        expect((await owner.delete(`/discussions/${created.body.id}`)).status).toBe(404);
      });

      it('creates an untitled discussion from an empty body', async () => {
        const created = await owner.request<Discussion>('POST', '/discussions');
        expect(created.status).toBe(201);
        expect(created.body.title).toBe('New discussion');
      });

      it("hides another user's discussion: 404 for reads, edits and deletes", async () => {
        const mine = await owner.post<Discussion>('/discussions', { title: 'Private plans' });
        const id = mine.body.id;
        for (const res of [
          await other.get<Problem>(`/discussions/${id}`),
          await other.get<Problem>(`/discussions/${id}/messages`),
          await other.patch<Problem>(`/discussions/${id}`, { title: 'hijacked' }),
          await other.delete<Problem>(`/discussions/${id}`),
        ]) {
          expect(res.status).toBe(404);
          expect(res.body.code).toBe('not_found');
        }
        const theirs = await other.get<ListEnvelope<Discussion>>('/discussions?limit=100');
        expect(theirs.body.data.map((d) => d.id)).not.toContain(id);
        expect((await owner.get<Discussion>(`/discussions/${id}`)).body.title).toBe('Private plans');
      });

      it('pages through 55 discussions with limit=20, each exactly once, newest first', async () => {
        const pager = owner.withToken(target.otherToken);
        const before = await collectPages<Discussion>(pager, '/discussions', 100);
        const ids: string[] = [];
        for (let i = 0; i < 55; i++)
          ids.push((await pager.post<Discussion>('/discussions', { title: `Paged ${i}` })).body.id);
        const { seen } = await collectPages<Discussion>(pager, '/discussions', 20);
        const pagedIds = seen.map((d) => d.id).filter((id) => ids.includes(id));
        expect(pagedIds).toEqual([...ids].reverse());
        expect(seen.length).toBe(55 + before.seen.length);
        expect(new Set(seen.map((d) => d.id)).size).toBe(seen.length);
      });
    });

    describe('memories', () => {
      it('creates, reads, edits and deletes a memory', async () => {
        const created = await owner.post<Memory>('/memories', {
          content: 'The boiler is serviced in October',
          tags: ['house'],
        });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({
          content: 'The boiler is serviced in October',
          tags: ['house'],
          source: 'user',
          discussion_id: null,
        });
        expect(created.body.id).toMatch(/^mem_/);
        const id = created.body.id;
        expect((await owner.get<Memory>(`/memories/${id}`)).body).toEqual(created.body);

        const edited = await owner.patch<Memory>(`/memories/${id}`, {
          content: 'The boiler is serviced in November',
        });
        expect(edited.body.content).toBe('The boiler is serviced in November');
        expect(edited.body.tags).toEqual(['house']);
        const retagged = await owner.patch<Memory>(`/memories/${id}`, {
          tags: ['house', 'heating', 'house'],
        });
        expect(retagged.body.tags).toEqual(['house', 'heating']);

        expect((await owner.delete(`/memories/${id}`)).status).toBe(204);
        expect((await owner.get(`/memories/${id}`)).status).toBe(404);
      });

      it('finds memories by their words with full-text search', async () => {
        const sister = await owner.post<Memory>('/memories', {
          content: "My sister's birthday is on March 3",
        });
        const car = await owner.post<Memory>('/memories', {
          content: 'The car needs new tyres before winter',
          tags: ['errands'],
        });
        await other.post('/memories', { content: "Other user's sister has a birthday too" });
        const search = async (q: string) =>
          (await owner.get<ListEnvelope<Memory>>(`/memories?q=${encodeURIComponent(q)}`)).body.data.map(
            (m) => m.id,
          );

        expect(await search('birthday')).toEqual([sister.body.id]);
        expect(await search("when is my sister's birthday?")).toEqual([sister.body.id]);
        expect(await search('birthdays')).toEqual([sister.body.id]); // stemming
        expect(await search('TYRES winter')).toEqual([car.body.id]);
        expect(await search('errands')).toEqual([car.body.id]); // tags are searched too
        expect(await search('birthday tyres')).toEqual([]); // every word must match
        expect(await search('volcano')).toEqual([]);

        await owner.patch(`/memories/${car.body.id}`, { content: 'The bike needs a new chain' });
        expect(await search('tyres')).toEqual([]);
        expect(await search('chain')).toEqual([car.body.id]);
        await owner.delete(`/memories/${car.body.id}`);
        expect(await search('chain')).toEqual([]);
      });

      it("hides another user's memory: 404 for reads, edits and deletes", async () => {
        const mine = await owner.post<Memory>('/memories', {
          content: 'The safe code is in the blue notebook',
        });
        const id = mine.body.id;
        for (const res of [
          await other.get<Problem>(`/memories/${id}`),
          await other.patch<Problem>(`/memories/${id}`, { content: 'changed' }),
          await other.delete<Problem>(`/memories/${id}`),
        ]) {
          expect(res.status).toBe(404);
          expect(res.body.code).toBe('not_found');
        }
        const searched = await other.get<ListEnvelope<Memory>>('/memories?q=notebook');
        expect(searched.body.data).toEqual([]);
        expect((await owner.get<Memory>(`/memories/${id}`)).body.content).toBe(
          'The safe code is in the blue notebook',
        );
      });

      it('pages through 55 memories with limit=20, each exactly once, newest first', async () => {
        const before = await collectPages<Memory>(owner, '/memories', 100);
        const ids: string[] = [];
        for (let i = 0; i < 55; i++)
          ids.push((await owner.post<Memory>('/memories', { content: `Paged fact number ${i}` })).body.id);
        const { seen, pageSizes } = await collectPages<Memory>(owner, '/memories', 20);
        expect(seen.length).toBe(55 + before.seen.length);
        expect(new Set(seen.map((m) => m.id)).size).toBe(seen.length);
        expect(seen.map((m) => m.id).filter((id) => ids.includes(id))).toEqual([...ids].reverse());
        expect(pageSizes.slice(0, -1).every((n) => n === 20)).toBe(true);

        const searched = await collectPages<Memory>(owner, '/memories?q=paged+fact', 20);
        expect(searched.seen.map((m) => m.id)).toEqual([...ids].reverse());
        expect(searched.pageSizes).toEqual([20, 20, 15]);
      });
    });

    describe('bad input gets a clear problem, never a 500', () => {
      it('invalid JSON → 422 naming the body', async () => {
        const res = await owner.request<Problem>('POST', '/memories', {
          rawBody: '{"content": "unterminated',
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ field: 'body' }] });
      });

      it('wrong types, missing and unknown fields → 422 with one entry per field', async () => {
        const wrongType = await owner.post<Problem>('/memories', { content: 42, tags: 'house' });
        expect(wrongType.status).toBe(422);
        expect(wrongType.body.errors?.map((e) => e.field).sort()).toEqual(['content', 'tags']);

        const missing = await owner.post<Problem>('/memories', {});
        expect(missing.body.errors?.map((e) => e.field)).toEqual(['content']);

        const unknown = await owner.post<Problem>('/memories', { content: 'x', colour: 'blue' });
        expect(unknown.status).toBe(422);
        expect(unknown.body.errors).toEqual([{ field: 'colour', message: 'unknown field' }]);

        const notAnObject = await owner.post<Problem>('/discussions', [1, 2]);
        expect(notAnObject.status).toBe(422);

        const emptyPatch = await owner.post<Memory>('/memories', { content: 'patch me' });
        const res = await owner.patch<Problem>(`/memories/${emptyPatch.body.id}`, {});
        expect(res.status).toBe(422);
      });

      it('a body over 64 KiB → 413 payload_too_large, and nothing is stored', async () => {
        const huge = 'x'.repeat(70 * 1024);
        const res = await owner.post<Problem>('/memories', { content: huge });
        expect(res.status).toBe(413);
        expect(res.body.code).toBe('payload_too_large');
        const search = await owner.get<ListEnvelope<Memory>>(`/memories?q=${'x'.repeat(100)}`);
        expect(search.body.data).toEqual([]);
      });

      it('a body that is not JSON → 415', async () => {
        const res = await owner.request<Problem>('POST', '/memories', {
          rawBody: 'content=hello',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expect(res.status).toBe(415);
        expect(res.body.code).toBe('unsupported_media_type');
      });

      it('bad cursors and limits → 422 naming the parameter', async () => {
        for (const [query, field] of [
          ['cursor=not-a-cursor', 'cursor'],
          [`cursor=${Buffer.from('v1:mem_zzzz').toString('base64url')}`, 'cursor'],
          ['limit=0', 'limit'],
          ['limit=101', 'limit'],
          ['limit=ten', 'limit'],
          ['limit=2.5', 'limit'],
          ['sort=asc', 'sort'],
        ]) {
          const res = await owner.get<Problem>(`/memories?${query}`);
          expect({ query, status: res.status }).toEqual({ query, status: 422 });
          expect(res.body.errors?.[0]?.field).toBe(field);
        }
        const discussionCursor = await owner.get<Problem>(
          `/discussions?cursor=${Buffer.from('v1:mem_0').toString('base64url')}`,
        );
        expect(discussionCursor.status).toBe(422);
      });

      it('unknown routes and ids → 404 problem', async () => {
        expect((await owner.get<Problem>('/nothing-here')).body.code).toBe('not_found');
        expect((await owner.get<Problem>('/memories/mem_unknown')).status).toBe(404);
        expect((await owner.get<Problem>('/memories/%00%ff')).status).toBe(404);
      });
    });

    describe('meta', () => {
      it('serves the OpenAPI 3.1 document without a token', async () => {
        const res = await anonymous.get<{ openapi: string; paths: Record<string, unknown> }>('/openapi.json');
        expect(res.status).toBe(200);
        expect(res.body.openapi).toBe('3.1.0');
        expect(Object.keys(res.body.paths)).toEqual(
          expect.arrayContaining(['/me', '/discussions', '/memories/{id}', '/tokens']),
        );
      });

      it('answers /healthz', async () => {
        const res = await anonymous.get<{ status: string }>('/healthz');
        expect(res.body.status).toBe('ok');
      });

      it('puts rate-limit headers with sane values on responses', async () => {
        const res = await owner.get('/me');
        expect(res.headers.get('x-ratelimit-resource')).toBe('core');
        const limit = Number(res.headers.get('x-ratelimit-limit'));
        const remaining = Number(res.headers.get('x-ratelimit-remaining'));
        const used = Number(res.headers.get('x-ratelimit-used'));
        expect(limit).toBeGreaterThan(0);
        expect(used + remaining).toBe(limit);
        expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
        expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      });
    });
  });
}
