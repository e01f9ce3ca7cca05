import { auditMigration } from './001_audit.js';
import { memoryMigration } from './002_memory.js';
import type { Migration } from './types.js';

export type { Migration } from './types.js';

/** Every schema change, in version order. Add a file `NNN_name.ts` and one line here. */
export const MIGRATIONS: readonly Migration[] = [auditMigration, memoryMigration];
