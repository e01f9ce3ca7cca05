import { healthCheck as check, type HealthCheck, type StorageHealth } from '../ports/health.js';
import { sizeText } from '../shared/size-text.js';

/** What the shared backend measures: a PostgreSQL database several replicas use. */
export interface PostgresFacts {
  /** The server and database as a URL without its password. */
  location: string;
  /** Whether a query could be run just now; when not, the fields below are unknown (0 / null). */
  reachable: boolean;
  /** Why it is not reachable (the driver's message; it names no password), or null. */
  problem: string | null;
  /** `server_version` of the server, such as `15.4`. */
  version: string | null;
  sizeBytes: number;
  /** The schema version the database has and the latest one this build knows. */
  migrations: { applied: number; latest: number } | null;
}

export type PostgresHealth = StorageHealth & PostgresFacts & { backend: 'postgres' };

/** Unreadable while the server cannot be reached or its schema is behind this build: its one check then says what to do. */
export function postgresHealth(facts: PostgresFacts): PostgresHealth {
  const behind = facts.migrations !== null && facts.migrations.applied < facts.migrations.latest;
  return { backend: 'postgres', ...facts, readable: facts.reachable && !behind, checks: [databaseCheck(facts)] };
}

/**
 * The shared database: reachable, its version, its schema against this build's and its size. An
 * unreachable database is an error: nothing can be read or written, requests answer 503.
 */
function databaseCheck(facts: PostgresFacts): HealthCheck {
  if (!facts.reachable) {
    return check('database', 'error', `PostgreSQL at ${facts.location} is unreachable (${facts.problem ?? 'no answer'})`,
      'start PostgreSQL or fix storage.postgres_url / DATABASE_URL; requests answer 503 until it is back, no restart needed');
  }
  const where = `PostgreSQL ${facts.version} at ${facts.location} (${sizeText(facts.sizeBytes)})`;
  const schema = facts.migrations;
  if (schema && schema.applied < schema.latest) {
    return check('database', 'error', `${where}: schema at version ${schema.applied}, this build needs ${schema.latest}`, 'run agentd migrate (agentd serve migrates at start)');
  }
  if (schema && schema.applied > schema.latest) {
    return check('database', 'warn', `${where}: schema at version ${schema.applied}, newer than this build knows (${schema.latest})`, 'upgrade agentd on this host to the version the other replicas run');
  }
  return check('database', 'ok', `${where}, schema version ${schema?.applied ?? '?'} (current)`);
}
