import { afterEach } from 'vitest';
import { SqliteStorage, type SqliteStorageOptions } from '../../src/storage/sqlite/index.js';

const opened: SqliteStorage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close()));
});

/** Every store on a fresh in-memory SQLite database, closed after the test. */
export function memoryStorage(options: SqliteStorageOptions = {}): SqliteStorage {
  const storage = new SqliteStorage(':memory:', options);
  opened.push(storage);
  return storage;
}
