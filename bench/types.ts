/** What one benchmark scenario reports. Ratios are against a baseline measured in the same run. */
export interface ScenarioResult {
  scenario: string;
  /** Measured figures, e.g. { agentd_rps: 12000, bare_rps: 14000, ratio: 0.86 }. */
  figures: Record<string, number | string>;
  /** The goal in words, e.g. "ratio >= 0.80". */
  goal: string;
  met: boolean;
  /**
   * The figures the goal is about, for the report's table: agentd's, the baseline's (where the
   * goal compares against one) and their ratio. Without it the table lists every figure.
   */
  headline?: { agentd: string; baseline?: string; ratio?: number };
}

export type Scenario = () => Promise<ScenarioResult | ScenarioResult[]>;
