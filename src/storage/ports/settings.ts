/** Named values an operator sets while the service runs, kept across restarts. */
export interface SettingsStore {
  /** The value, or null when it was never set. */
  get(key: string): Promise<string | null>;
  /** Stores the value (resolves after the commit); `at` is when, ISO 8601. */
  set(key: string, value: string, at: string): Promise<void>;
}
