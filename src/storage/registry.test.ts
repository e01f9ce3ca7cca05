import { expect, it } from 'vitest';
import { parseConfig } from '../config/load.js';
import { configSchema } from '../config/schema.js';
import { storageBackend } from './registry.js';

// The config's enum is spelt out in the schema (the schema cannot import the backends without an
// import circle through config/), so this keeps the two lists the same.
it('has a backend for every value storage.backend accepts, and the config default for a home without config', () => {
  const accepted = configSchema.shape.storage.unwrap().shape.backend.unwrap().options;
  const config = (backend: string) => parseConfig({ storage: { backend, postgres_url: 'postgres://h/db' } });
  expect(accepted.map((name) => storageBackend(config(name)).name)).toEqual(accepted);
  expect(storageBackend(null).name).toBe(parseConfig({}).storage.backend);
});
