/** How one finding about the store reads in the doctor report: the shape of a diagnostics check. */
export interface HealthCheck {
  name: string;
  status: 'ok' | 'warn' | 'error';
  summary: string;
  /** What the operator can do about a warn or error. */
  remediation?: string;
  /** Longer text to review, shown as is. */
  detail?: string;
}

/**
 * What the doctor reports about the store behind the service. Each backend judges its own state
 * and says so in `checks`, an open list: the report shows them as they come, so a backend brings
 * checks of its own without any change outside its folder. Backends add the facts they measured.
 */
export interface StorageHealth {
  /** The backend's name in the registry (`storage.backend`). */
  backend: string;
  /** Where the data lives: a file path, or a URL without its password. */
  location: string;
  sizeBytes: number;
  /**
   * False when nothing can be read now (an unreachable server, a schema behind this build): the
   * report then shows `checks` alone, every other check reading the store.
   */
  readable: boolean;
  /** The backend's findings, in the order the report shows them. */
  checks: HealthCheck[];
}

export const healthCheck = (name: string, status: HealthCheck['status'], summary: string, remediation?: string): HealthCheck =>
  remediation ? { name, status, summary, remediation } : { name, status, summary };
