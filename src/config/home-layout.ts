import { join } from 'node:path';

/**
 * Every file agentd keeps in its home folder, named once: the service, the commands, the doctor
 * and the storage backends find them here, so a file is never spelt two ways.
 */
export const HOME_FILES = {
  /** The config file, unless --config names another. */
  config: 'config.yaml',
  /** The SQLite database (its -wal and -shm files sit beside it). */
  database: 'agentd.db',
  /** Holds the pid of the one service running on the home. */
  lock: 'agentd.lock',
  /** The URL the running service listens on, for the doctor and the CLI to find it. */
  url: 'agentd.url',
  /** This replica's id among those sharing a PostgreSQL database. */
  replicaId: 'agentd.replica',
  /** The key approvals' request hashes are made with when approval_hash_key is not set. */
  approvalHashKey: 'approval-hash.key',
} as const;

export type HomeFile = keyof typeof HOME_FILES;

/** The path of one of the home's files. */
export const homeFile = (home: string, file: HomeFile): string => join(home, HOME_FILES[file]);
