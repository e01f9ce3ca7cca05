import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { AuditLog } from '../src/audit/log.js';
import { Gateway } from '../src/gateway/gateway.js';
import { createMemoryLogger } from '../src/log.js';
import { MAX_CONNECTIONS } from '../src/gateway/pool.js';
import { KEEP_ALIVE_TIMEOUT_MS } from '../src/gateway/pool-connection.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { startChildServer } from './servers.js';
import { median } from './stats.js';
import type { AuditEvent, AuditInput, AuditSink } from '../src/storage/ports/audit.js';
import type { ScenarioResult } from './types.js';

/**
 * Latency of one sequential GET through the gateway (URL check, policy, REST rules, pinned
 * pooled connection, bounded read, audit event) against raw undici `request` on an agent with the
 * same keep-alive settings, both to a bare node:http server in its own process. The sides alternate in blocks
 * so that drift on a shared machine hits all of them equally; figures are medians.
 *
 * The goal is on the gateway's own path (`ratio`: the audit event is built but handed to a sink
 * that stores nothing). The same requests with the real SQLite audit log are reported beside it
 * (`ratio_with_audit_log`), with the cost of one `AuditLog.emit` on its own, because on loopback
 * one committed audit row costs more than the whole HTTP round trip.
 */
const WARM_UP = 500;
const MEASURED = 2000;
const BLOCK = 100;

async function timed(samples: number[], count: number, once: () => Promise<void>): Promise<void> {
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await once();
    samples.push(performance.now() - start);
  }
}

/** Accepts events and stores nothing: isolates the gateway's path from the audit store's cost. */
const discardingSink: AuditSink = {
  emit: async (input: AuditInput): Promise<AuditEvent> => ({
    id: '', timestamp: '', severity: 'info', actor: null, source: null, subsystem: null, action: null,
    session_id: null, task_id: null, detail: {}, ...input,
  } as AuditEvent),
};

/** Goal on what the durable audit write adds to a gateway request, at the median. */
const AUDIT_ADDED_GOAL_US = 60;

export async function gatewayScenario(): Promise<ScenarioResult[]> {
  const server = await startChildServer('bare');
  const url = `${server.url}/`;
  const port = new URL(url).port;
  const home = mkdtempSync(join(tmpdir(), 'agentd-bench-gateway-'));
  const storage = new SqliteStorage(join(home, 'audit.db'));
  const policy = NetworkPolicy.fromConfig({ allowed_hosts: [`127.0.0.1:${port}`] });
  const auditLog = new AuditLog(storage.audit);
  const common = { category: 'tool', sessionId: 'bench', taskId: 'bench' } as const;
  // One gateway per audit sink, as an app has one; a client per request, as providers and tools do.
  const gateway = new Gateway({ policy, audit: discardingSink, log: createMemoryLogger() });
  const auditedGateway = new Gateway({ policy, audit: auditLog, log: createMemoryLogger() });
  const agent = new Agent({ connections: MAX_CONNECTIONS, pipelining: 1, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS });
  const through = (g: Gateway) => async (): Promise<void> => {
    const response = await g.client(common).get(url);
    if (response.status !== 200) throw new Error(`gateway got ${response.status}`);
    response.text();
  };
  const viaGateway = through(gateway);
  const viaAuditedGateway = through(auditedGateway);
  const viaUndici = async (): Promise<void> => {
    const response = await request(url, { dispatcher: agent });
    if (response.statusCode !== 200) throw new Error(`undici got ${response.statusCode}`);
    await response.body.text();
  };
  const emitOnly = async (): Promise<void> => {
    // Resolves once the event is committed, as the gateway's own emit is.
    await auditLog.emit({ event_type: 'network_request', category: 'network', result: 'allow', subsystem: 'gateway', detail: { method: 'GET', url, status_code: 200 } });
  };
  try {
    for (const warm of [viaGateway, viaAuditedGateway, viaUndici]) await timed([], WARM_UP, warm);
    const gateway: number[] = [];
    const gatewayAudited: number[] = [];
    const undici: number[] = [];
    const emits: number[] = [];
    for (let done = 0; done < MEASURED; done += BLOCK) {
      await timed(gateway, BLOCK, viaGateway);
      await timed(undici, BLOCK, viaUndici);
      await timed(gatewayAudited, BLOCK, viaAuditedGateway);
      await timed(emits, BLOCK / 4, emitOnly);
    }
    const undiciMedian = median(undici);
    const ratio = median(gateway) / undiciMedian;
    const figure = (n: number, digits = 4) => Number(n.toFixed(digits));
    const auditAddedUs = (median(gatewayAudited) - median(gateway)) * 1000;
    return [{
      scenario: 'gateway: sequential GET through the gateway vs raw undici request (loopback)',
      figures: {
        gateway_median_ms: figure(median(gateway)),
        undici_median_ms: figure(undiciMedian),
        ratio: figure(ratio, 3),
        gateway_with_audit_log_median_ms: figure(median(gatewayAudited)),
        ratio_with_audit_log: figure(median(gatewayAudited) / undiciMedian, 3),
        audit_emit_median_ms: figure(median(emits)),
        requests_each: MEASURED,
      },
      goal: 'ratio <= 1.15 (gateway path; the audit store write is in ratio_with_audit_log)',
      met: ratio <= 1.15,
      headline: { agentd: `${figure(median(gateway) * 1000, 1)} µs`, baseline: `${figure(undiciMedian * 1000, 1)} µs (raw undici)`, ratio: figure(ratio, 3) },
    }, {
      scenario: 'gateway: latency the durable SQLite audit write adds to a request (median)',
      figures: { added_us: figure(auditAddedUs, 1), audit_emit_median_us: figure(median(emits) * 1000, 1) },
      goal: `added_us <= ${AUDIT_ADDED_GOAL_US}`,
      met: auditAddedUs <= AUDIT_ADDED_GOAL_US,
      headline: {
        agentd: `${figure(median(gatewayAudited) * 1000, 1)} µs with the audit write`,
        baseline: `${figure(median(gateway) * 1000, 1)} µs without (+${figure(auditAddedUs, 1)} µs)`,
      },
    }];
  } finally {
    await Promise.all([gateway.close(), auditedGateway.close(), agent.close(), server.close()]);
    await storage.close();
    rmSync(home, { recursive: true, force: true });
  }
}
