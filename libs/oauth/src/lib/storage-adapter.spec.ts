import type { OAuthRecordsRepository } from '@assistant/storage';
import { storageAdapter, UNUSED_CLIENT_SECONDS } from './storage-adapter';

/** Records that answer as the database does when two redemptions race: the first consumption wins. */
function racingRecords() {
  let consumed = false;
  return {
    consume: async () => {
      const won = !consumed;
      consumed = true;
      return won;
    },
    find: async () => ({
      payload: { jti: 'code-1', grantId: 'g1' },
      consumedAt: consumed ? new Date(1_700_000_000_000) : null,
    }),
  } as unknown as OAuthRecordsRepository;
}

describe('the authorization server storage adapter', () => {
  it('lets one consumption of a code through and refuses every other, as the provider’s invalid_grant', async () => {
    const refused = new Error('invalid_grant');
    const Adapter = storageAdapter(racingRecords(), () => refused);
    const codes = new Adapter('AuthorizationCode');
    const results = await Promise.allSettled([codes.consume('code-1'), codes.consume('code-1')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((results[1] as PromiseRejectedResult).reason).toBe(refused);
  });

  it('hands the provider a consumed record with `consumed`, in seconds', async () => {
    const records = racingRecords();
    const Adapter = storageAdapter(records, () => new Error('x'));
    const codes = new Adapter('AuthorizationCode');
    expect(await codes.find('code-1')).toEqual({ jti: 'code-1', grantId: 'g1' });
    await codes.consume('code-1');
    expect(await codes.find('code-1')).toEqual({ jti: 'code-1', grantId: 'g1', consumed: 1_700_000_000 });
  });

  it('keeps a client the provider registers a day only, unless a grant is saved for it first', async () => {
    const kept = new Map<string, { payload: Record<string, unknown>; expiresIn?: number }>();
    const records = {
      upsert: async (kind: string, id: string, payload: Record<string, unknown>, expiresIn?: number) => {
        kept.set(`${kind}/${id}`, { payload, expiresIn });
      },
      find: async (kind: string, id: string) => {
        const record = kept.get(`${kind}/${id}`);
        return record
          ? {
              payload: record.payload,
              expiresAt: record.expiresIn ? new Date(Date.now() + record.expiresIn * 1000) : null,
            }
          : null;
      },
    } as unknown as OAuthRecordsRepository;
    const Adapter = storageAdapter(records, () => new Error('x'));

    await new Adapter('Client').upsert('app_1', { client_id: 'app_1' });
    expect(kept.get('Client/app_1')?.expiresIn).toBe(UNUSED_CLIENT_SECONDS);
    await new Adapter('Client').upsert('app_2', { client_id: 'app_2' });

    await new Adapter('Grant').upsert('g1', { clientId: 'app_1', accountId: 'usr_1' }, 3600);
    expect(kept.get('Client/app_1')).toEqual({ payload: { client_id: 'app_1' }, expiresIn: undefined });
    expect(kept.get('Client/app_2')?.expiresIn).toBe(UNUSED_CLIENT_SECONDS);
    expect(kept.get('Grant/g1')?.expiresIn).toBe(3600);
  });
});
