import type { AuditEvent, AuditResult, AuditSeverity } from '../src/storage/ports/audit.js';
import { seededRandom } from './stats.js';

/**
 * A month of synthetic audit events in the proportions a busy service writes them: mostly API
 * requests and gateway traffic, some agent runs and tool calls, webhook intake, a few denials,
 * failed logins and scheduler fires. Seeded, so every run loads the same log; timestamps rise
 * with the chain order, as they do when the service writes them.
 */

interface Template {
  share: number;
  event_type: string;
  category: string;
  result: AuditResult;
  severity: AuditSeverity;
  subsystem: string;
  detail: (n: number, pick: (k: number) => number) => Record<string, unknown>;
  withSession?: boolean;
  withTask?: boolean;
  actor?: 'key' | 'web' | 'webhook';
}

/** Hosts the gateway talks to: `HOSTS` of them, so a host name is a rare `q`. */
export const HOSTS = 5_000;
export const hostName = (k: number) => `api-${k}.vendor.example`;
const SESSIONS = 5_000;

const TEMPLATES: Template[] = [
  {
    share: 40, event_type: 'http.request', category: 'web', result: 'allow', severity: 'info', subsystem: 'http', actor: 'key',
    detail: (n, pick) => ({ method: pick(4) === 0 ? 'POST' : 'GET', path: ['/api/v1/status', '/api/v1/memory/search', '/api/v1/runs', '/api/v1/audit'][pick(4)], status: 200, duration_ms: pick(40), request_id: `req_${n.toString(36)}` }),
  },
  {
    share: 20, event_type: 'network_request', category: 'network', result: 'allow', severity: 'info', subsystem: 'gateway', withSession: true,
    detail: (_n, pick) => ({ method: 'GET', url: `https://${hostName(pick(HOSTS))}/v1/items/${pick(100_000)}`, status: 200, bytes: pick(200_000) }),
  },
  {
    share: 5, event_type: 'network_denied', category: 'network', result: 'deny', severity: 'warning', subsystem: 'gateway', withSession: true,
    detail: (_n, pick) => ({ method: 'POST', url: `https://${hostName(pick(HOSTS))}/upload`, reason: 'host not in allow list' }),
  },
  {
    share: 12, event_type: 'agent.tool_call', category: 'tool', result: 'allow', severity: 'info', subsystem: 'agent', withSession: true, withTask: true,
    detail: (_n, pick) => ({ tool: ['calculator', 'web_fetch', 'memory_search', 'clock'][pick(4)], duration_ms: pick(900) }),
  },
  {
    share: 7, event_type: 'agent.run.complete', category: 'agent', result: 'allow', severity: 'info', subsystem: 'agent', withSession: true, withTask: true,
    detail: (_n, pick) => ({ provider: 'offline', input_tokens: pick(4_000), output_tokens: pick(800), cost_usd: 0 }),
  },
  {
    share: 1, event_type: 'agent.run.complete', category: 'agent', result: 'error', severity: 'error', subsystem: 'agent', withSession: true, withTask: true,
    detail: () => ({ provider: 'openai', error: 'upstream answered 529' }),
  },
  {
    share: 8, event_type: 'webhook.accept', category: 'webhook', result: 'allow', severity: 'info', subsystem: 'webhook', actor: 'webhook',
    detail: (n) => ({ sender: `sender-${n % 40}`, bytes: 300 + (n % 900) }),
  },
  {
    share: 2, event_type: 'webhook.reject', category: 'webhook', result: 'deny', severity: 'warning', subsystem: 'webhook', actor: 'webhook',
    detail: () => ({ reason: 'bad_signature' }),
  },
  {
    share: 3, event_type: 'web.auth', category: 'web', result: 'deny', severity: 'warning', subsystem: 'auth',
    detail: (_n, pick) => ({ reason: 'invalid api key', path: '/api/v1/status', attempts: 1 + pick(5) }),
  },
  {
    share: 1, event_type: 'web.login', category: 'web', result: 'allow', severity: 'info', subsystem: 'auth', actor: 'web',
    detail: () => ({ method: 'api_key' }),
  },
  {
    share: 1, event_type: 'scheduler.job.fired', category: 'scheduler', result: 'allow', severity: 'info', subsystem: 'scheduler', actor: 'key',
    detail: (_n, pick) => ({ job_id: `job_${pick(20)}`, missed: 0 }),
  },
];

const TOTAL_SHARE = TEMPLATES.reduce((sum, t) => sum + t.share, 0);

/** Events `[from, from + count)` of a log of `total` events spread evenly over `[start, end)`. */
export class AuditEventSource {
  private readonly random = seededRandom(20261123);
  private readonly cumulative: number[];

  constructor(
    private readonly total: number,
    private readonly startMs: number,
    private readonly endMs: number,
  ) {
    let sum = 0;
    this.cumulative = TEMPLATES.map((t) => (sum += t.share));
  }

  batch(from: number, count: number): AuditEvent[] {
    const events: AuditEvent[] = [];
    const step = (this.endMs - this.startMs) / this.total;
    for (let n = from; n < from + count; n++) events.push(this.event(n, new Date(this.startMs + Math.floor(n * step)).toISOString()));
    return events;
  }

  /** One more event of the same mix, stamped `timestamp` (the writes during the queries). */
  event(n: number, timestamp: string): AuditEvent {
    const pick = (k: number) => Math.floor(this.random() * k);
    const roll = this.random() * TOTAL_SHARE;
    const template = TEMPLATES[this.cumulative.findIndex((c) => roll < c)]!;
    const session = template.withSession ? `sess_${pick(SESSIONS)}` : null;
    return {
      id: `evt_bench_${n.toString(36)}`,
      timestamp,
      event_type: template.event_type,
      category: template.category,
      result: template.result,
      severity: template.severity,
      actor: template.actor === 'key' ? 'api_key' : template.actor === 'web' ? `web:${pick(50)}` : template.actor === 'webhook' ? 'webhook' : null,
      source: template.actor === 'webhook' ? `10.0.${pick(4)}.${pick(250)}` : template.subsystem === 'auth' ? `203.0.113.${pick(250)}` : null,
      subsystem: template.subsystem,
      action: template.event_type === 'http.request' ? 'GET' : null,
      session_id: session,
      task_id: template.withTask ? `run_${pick(200_000).toString(36)}` : null,
      detail: template.detail(n, pick),
    };
  }
}
