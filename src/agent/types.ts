/** Shapes of the agent runtime that cross module boundaries (routes, storage). */

/** An API session (docs/resources.md#api-sessions). Lives in memory only. */
export interface ApiSession {
  id: string;
  name: string | null;
  provider: string;
  created_at: string;
  last_used_at: string;
  /** Turns stored through this session since it was created. */
  turn_count: number;
}
