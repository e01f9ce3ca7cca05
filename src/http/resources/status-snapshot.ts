/**
 * What the status endpoint reports; each part is filled by the subsystem that owns it. In a file of
 * its own, free of server imports, because the console's bundle imports the type too.
 */
export interface StatusSnapshot {
  version: string;
  uptime_s: number;
  providers_available: string[];
  default_provider: string;
  tool_count: number;
  session_count: number;
  memory: { present: boolean; turn_count: number };
  /** Accepted webhook messages waiting for their run; null when the webhook channel is off. */
  webhook_queue_depth: number | null;
}
