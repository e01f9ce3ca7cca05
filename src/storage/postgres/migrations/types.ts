/** A numbered PostgreSQL schema change, applied once, in version order, each in its own transaction. */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}
