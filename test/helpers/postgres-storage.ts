import { afterAll, beforeAll } from 'vitest';
import { PostgresStorage, type PostgresStorageOptions } from '../../src/storage/postgres/index.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

// Apart from ./postgres.js: that one is also read by the test run's global set-up, where vitest's hooks do not exist.
/**
 * A migrated PostgreSQL storage on a database of its own, for the tests of one `describe`: opened before
 * them, closed and dropped after them. Read `.storage` inside the tests (it exists from `beforeAll` on).
 */
export function usePostgresStorage(options: PostgresStorageOptions): { readonly storage: PostgresStorage } {
  let database: TestDatabase | undefined;
  let storage: PostgresStorage | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    storage = await PostgresStorage.open(database.url, options);
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });
  return {
    get storage() {
      if (!storage) throw new Error('the test storage is opened in beforeAll: read it inside a test');
      return storage;
    },
  };
}
