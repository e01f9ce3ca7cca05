import { readFileSync, writeFileSync } from 'node:fs';
import { homeFile } from '../../config/home-layout.js';
import { newId } from '../../security/ids/tokens.js';

/**
 * The id of the replica whose home this is: made on its first start and kept in the home, so the
 * same replica after a restart recognises the runs its previous process left in a shared database.
 */
export function replicaIdOf(home: string): string {
  const file = homeFile(home, 'replicaId');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (/^rep_[A-Za-z0-9_-]+$/.test(id)) return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const id = newId('rep');
  writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}
