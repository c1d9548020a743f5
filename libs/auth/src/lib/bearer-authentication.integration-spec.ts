/**
 * Bearer authentication with the real token service on SQLite: how the Authorization header is read, that a token
 * the service verified lately is answered without a promise (the request path's every microtask counts, issue 23),
 * and that a failing database is not mistaken for a bad token.
 */
import { openTestStorage } from '@assistant/storage/testing';
import type { Storage } from '@assistant/storage';
import { AuthError } from './auth.errors';
import {
  authenticateBearer,
  bearerSecretOf,
  verifiedCaller,
  type BearerOutcome,
} from './bearer-authentication';
import { TokenService } from './token.service';

describe('bearer authentication', () => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let tokens: TokenService;
  let secret: string;

  beforeAll(async () => {
    ({ storage, dispose } = await openTestStorage('sqlite'));
    tokens = new TokenService(storage.tokens, { cacheTtlMs: 60_000 });
    const userId = (await storage.users.create({ email: 'bearer@example.com', displayName: 'B' })).id;
    ({ secret } = await tokens.issue({ userId, kind: 'personal', name: 't', scopes: ['read:account'] }));
  });
  afterAll(async () => dispose());

  const requestWith = (headers: Record<string, string>, rest: object = {}) => ({ headers, ...rest });

  it('reads `Authorization: Bearer <token>` as passport-http-bearer did: two parts, the scheme in any case', () => {
    expect(bearerSecretOf(requestWith({ authorization: `Bearer ${secret}` }))).toBe(secret);
    expect(bearerSecretOf(requestWith({ authorization: `bEaReR ${secret}` }))).toBe(secret);
    for (const authorization of [
      `Bearer  ${secret}`,
      `Bearer ${secret} x`,
      'Bearer ',
      'Bearer',
      `Basic ${secret}`,
    ])
      expect(bearerSecretOf(requestWith({ authorization }))).toBeUndefined();
    expect(bearerSecretOf(requestWith({}))).toBeUndefined();
  });

  it('refuses a request without a usable header, and one naming a token in its query string or body too', async () => {
    const refusals = [
      requestWith({}),
      requestWith({ authorization: `Token ${secret}` }),
      requestWith({ authorization: `Bearer ${secret}` }, { query: { access_token: secret } }),
      requestWith({ authorization: `Bearer ${secret}` }, { body: { access_token: secret } }),
    ];
    for (const request of refusals) {
      const outcome = await authenticateBearer(request, tokens);
      expect('refusal' in outcome && outcome.refusal).toBeInstanceOf(AuthError);
      expect(await verifiedCaller(request, tokens)).toBeNull();
    }
  });

  it('answers without a promise for a token the service verified lately, with a promise when it asks the database', async () => {
    const service = new TokenService(storage.tokens, { cacheTtlMs: 60_000 });
    const first = authenticateBearer(requestWith({ authorization: `Bearer ${secret}` }), service);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ principal: { kind: 'personal' } });

    const again = authenticateBearer(requestWith({ authorization: `Bearer ${secret}` }), service);
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as BearerOutcome & { principal: unknown }).principal).toMatchObject({ kind: 'personal' });
  });

  it('throws a failure of the database from verifiedCaller instead of taking it for a bad token', async () => {
    const broken = await openTestStorage('sqlite');
    const service = new TokenService(broken.storage.tokens);
    await broken.dispose();

    await expect(
      Promise.resolve(verifiedCaller(requestWith({ authorization: `Bearer ${secret}` }), service)),
    ).rejects.not.toBeInstanceOf(AuthError);
  });
});
