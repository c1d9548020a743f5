import { DataSource, EntityManager } from 'typeorm';
import { openTestStorage } from './testing';

describe.each(['sqlite', 'postgres'] as const)('what a storage on %s hands out', (dialect) => {
  it('repositories and a few methods, never TypeORM itself', async () => {
    const { storage, dispose } = await openTestStorage(dialect);
    try {
      const typeorm = Object.entries(storage)
        .filter(([, value]) => value instanceof DataSource || value instanceof EntityManager)
        .map(([key]) => key);
      expect(typeorm).toEqual([]);
      // @ts-expect-error the data source is not part of the type either
      expect(storage.dataSource).toBeUndefined();
      await expect(storage.ping()).resolves.toBeUndefined();
    } finally {
      await dispose();
    }
  });
});

describe('Storage.ping', () => {
  it('rejects once the database is closed', async () => {
    const { storage, dispose } = await openTestStorage('sqlite');
    try {
      await storage.close();
      await expect(storage.ping()).rejects.toThrow();
    } finally {
      await dispose();
    }
  });
});
