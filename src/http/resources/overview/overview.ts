/**
 * What GET /overview answers (docs/resources.md#overview). In a file of its own, free of server
 * imports, because the console's bundle imports the type too.
 */
import type { HourSpend } from '../../../storage/ports/costs.js';
import type { NextFire } from '../../../storage/ports/jobs.js';
import type { RunHourCount, RunRecord } from '../../../storage/ports/runs.js';
import type { StatusSnapshot } from '../status-snapshot.js';

export interface Overview {
  status: StatusSnapshot;
  runs: {
    /** Counted up to `RUN_TOTAL_CAP`, as the run list counts. */
    running: number;
    pending: number;
    in_flight: RunRecord[];
    recent_errors: RunRecord[];
    hourly: { since: string; hours: RunHourCount[] };
  };
  pending_approvals: number;
  next_fires: NextFire[];
  spend: {
    hourly: { since: string; hours: HourSpend[] };
    max_spend_usd: number;
    sessions_at_cap: number;
  };
}
