import type { Storage } from '@assistant/storage';
import { repositoryProviders, repositoryToken } from './repositories';

describe('the repositories of the opened storage', () => {
  const memories = { list: () => [] };
  const users = { findById: () => null };
  const storage = {
    dialect: 'sqlite',
    memories,
    users,
    ping: async () => undefined,
    schemaIsCurrent: async () => true,
    close: async () => undefined,
  } as unknown as Storage;

  it('are each provided under the token of their name, and nothing else of the storage is', () => {
    const providers = repositoryProviders(storage);

    expect(providers).toEqual([
      { provide: repositoryToken('memories'), useValue: memories },
      { provide: repositoryToken('users'), useValue: users },
    ]);
  });

  it('have one token per name', () => {
    expect(repositoryToken('memories')).toBe(repositoryToken('memories'));
    expect(repositoryToken('memories')).not.toBe(repositoryToken('users'));
    expect(repositoryToken('oauth').description).toBe('repository:oauth');
  });
});
