import type { OAuthRecordsRepository } from '@assistant/storage';
import { storageAdapter } from './storage-adapter';

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
});
