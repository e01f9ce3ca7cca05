import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRecord, ApprovalStore } from '../ports/approvals.js';

/**
 * The behaviour every `ApprovalStore` backend must have. `another` is a second store on the same
 * database with another owner (a second replica) when the backend is shared by replicas.
 */
export type OpenApprovalStore = () => Promise<{ store: ApprovalStore; another?: ApprovalStore; close(): Promise<void> }>;

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const T9 = '2026-01-01T00:05:00.000Z';

export function pendingApproval(id: string, overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id, run_id: `run_${id}`, session_id: 'sess-1', kind: 'tool', request: 'calculator {"expression":"1+1"}',
    request_hash: 'a'.repeat(64), scope: 'calculator', grant_stage: 'tool', grant_rule: null, session_grant_allowed: true,
    grant_run_id: null, grant_ended_at: null, state: 'pending', decision: null, decided_by: null,
    created_at: T0, expires_at: T9, decided_at: null, ...overrides,
  };
}

export function describeApprovalStore(backend: string, open: OpenApprovalStore, options: { sharedByReplicas: boolean }): void {
  describe(`ApprovalStore contract (${backend})`, () => {
    let approvals: ApprovalStore;
    let another: ApprovalStore | undefined;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store: approvals, another, close } = await open());
    });
    afterEach(async () => {
      await close();
    });

    it('stores an approval and reads it back, listed newest first, pending ones alone when asked', async () => {
      await approvals.create(pendingApproval('a1'));
      await approvals.create(pendingApproval('a2', { kind: 'network', request: 'GET https://example.com/', scope: 'example.com' }));
      expect(await approvals.get('a1')).toEqual(pendingApproval('a1'));
      expect(await approvals.get('missing')).toBeNull();
      await approvals.decide('a1', { decision: 'deny', decided_by: 'api_key', decided_at: T1 });
      expect((await approvals.list({ pendingOnly: false, limit: 10 })).map((a) => a.id)).toEqual(['a2', 'a1']);
      expect((await approvals.list({ pendingOnly: true, limit: 10 })).map((a) => a.id)).toEqual(['a2']);
      expect(await approvals.list({ pendingOnly: false, limit: 1 })).toHaveLength(1);
    });

    it('lists the approvals of one run, decided or not, in the order asked', async () => {
      await approvals.create(pendingApproval('a1', { run_id: 'run_x' }));
      await approvals.create(pendingApproval('a2', { run_id: 'run_y' }));
      await approvals.create(pendingApproval('a3', { run_id: 'run_x', kind: 'network', scope: 'https://example.com:443', grant_stage: 'host' }));
      await approvals.create(pendingApproval('a4', { run_id: null }));
      await approvals.decide('a1', { decision: 'deny', decided_by: 'api_key', decided_at: T1 });
      expect((await approvals.listByRun('run_x', 10)).map((a) => [a.id, a.state, a.decided_by])).toEqual([['a1', 'denied', 'api_key'], ['a3', 'pending', null]]);
      expect((await approvals.listByRun('run_x', 1)).map((a) => a.id)).toEqual(['a1']);
      expect(await approvals.listByRun('run_none', 10)).toEqual([]);
    });

    it('takes the first decision only: a second one finds it closed', async () => {
      await approvals.create(pendingApproval('a1'));
      const decided = await approvals.decide('a1', { decision: 'allow_once', decided_by: 'web_session:w1', decided_at: T1 });
      expect(decided).toEqual({ ...pendingApproval('a1'), state: 'allowed', decision: 'allow_once', decided_by: 'web_session:w1', decided_at: T1 });
      expect(await approvals.decide('a1', { decision: 'deny', decided_by: 'api_key', decided_at: T1 })).toBeNull();
      expect(await approvals.decide('missing', { decision: 'deny', decided_by: 'api_key', decided_at: T1 })).toBeNull();
      expect((await approvals.get('a1'))?.decision).toBe('allow_once');
    });

    it('reads which of several approvals are closed in one call', async () => {
      await approvals.create(pendingApproval('a1'));
      await approvals.create(pendingApproval('a2'));
      await approvals.create(pendingApproval('a3'));
      await approvals.decide('a2', { decision: 'deny', decided_by: 'api_key', decided_at: T1 });
      await approvals.decide('a3', { decision: 'allow_once', decided_by: 'api_key', decided_at: T1 });
      expect((await approvals.closedAmong(['a1', 'a2', 'missing'])).map((a) => [a.id, a.decision])).toEqual([['a2', 'deny']]);
      expect(await approvals.closedAmong([])).toEqual([]);
    });

    it('remembers allow_session for the session, kind, scope and stage only', async () => {
      const q = { sessionId: 'sess-1', runId: 'run_x', kind: 'tool' as const, scope: 'calculator', stage: 'tool' as const };
      await approvals.create(pendingApproval('a1'));
      expect(await approvals.granted(q)).toBe(false);
      await approvals.decide('a1', { decision: 'allow_session', decided_by: 'api_key', decided_at: T1 });
      expect(await approvals.granted(q)).toBe(true);
      expect(await approvals.granted({ ...q, runId: null })).toBe(true);
      expect(await approvals.granted({ ...q, sessionId: 'sess-2' })).toBe(false);
      expect(await approvals.granted({ ...q, kind: 'network' })).toBe(false);
      expect(await approvals.granted({ ...q, scope: 'current_time' })).toBe(false);
      expect(await approvals.granted({ ...q, scope: 'calculator2' })).toBe(false);
      expect(await approvals.granted({ ...q, scope: 'Calculator' })).toBe(false);
      expect(await approvals.granted({ ...q, stage: 'host' })).toBe(false);
    });

    it('holds a run-bound grant for that run only, never one not offered, and ends the grants of a deleted session', async () => {
      const net = { kind: 'network' as const, scope: 'http://b.localhost:18111', grant_stage: 'host' as const };
      await approvals.create(pendingApproval('run-bound', { ...net, session_id: 'job:j1', run_id: 'run_1', grant_run_id: 'run_1' }));
      await approvals.create(pendingApproval('rest', { ...net, grant_stage: 'rest', grant_rule: 'network.rest_policies[0]', session_grant_allowed: false }));
      await approvals.create(pendingApproval('api', { ...net, scope: 'https://b.localhost:18111' }));
      for (const id of ['run-bound', 'rest', 'api']) await approvals.decide(id, { decision: 'allow_session', decided_by: 'api_key', decided_at: T1 });
      const q = { kind: 'network' as const, scope: 'http://b.localhost:18111', stage: 'host' as const };
      expect(await approvals.granted({ ...q, sessionId: 'job:j1', runId: 'run_1' })).toBe(true);
      expect(await approvals.granted({ ...q, sessionId: 'job:j1', runId: 'run_2' })).toBe(false);
      expect(await approvals.granted({ ...q, sessionId: 'job:j1', runId: null })).toBe(false);
      // Stored as allow_session (a store does not judge), yet not offered: it grants nothing.
      expect(await approvals.granted({ ...q, sessionId: 'sess-1', runId: null, stage: 'rest' })).toBe(false);
      expect(await approvals.get('rest')).toMatchObject({ session_grant_allowed: false, grant_rule: 'network.rest_policies[0]', grant_stage: 'rest' });

      const https = { ...q, sessionId: 'sess-1', runId: null, scope: 'https://b.localhost:18111' };
      expect(await approvals.granted(https)).toBe(true);
      expect(await approvals.endSessionGrants('sess-1', T9)).toBe(2);
      expect(await approvals.granted(https)).toBe(false);
      expect(await approvals.get('api')).toMatchObject({ decision: 'allow_session', grant_ended_at: T9 });
      expect(await approvals.endSessionGrants('sess-1', T9)).toBe(0);
      expect(await approvals.granted({ ...q, sessionId: 'job:j1', runId: 'run_1' })).toBe(true);
    });

    it('says whether a run waits, closes expired approvals and its own pending ones', async () => {
      await approvals.create(pendingApproval('old', { expires_at: T1 }));
      await approvals.create(pendingApproval('new'));
      expect(await approvals.runWaiting('run_old')).toBe(true);
      const expired = await approvals.closeExpired({ decision: 'timeout', decided_by: 'system', decided_at: '2026-01-01T00:01:00.000Z' }, 10);
      expect(expired.map((a) => [a.id, a.state, a.decision])).toEqual([['old', 'denied', 'timeout']]);
      expect(await approvals.runWaiting('run_old')).toBe(false);
      const closed = await approvals.closeOwnPending({ decision: 'interrupted', decided_by: 'system', decided_at: T1 });
      expect(closed.map((a) => [a.id, a.decision])).toEqual([['new', 'interrupted']]);
      expect(await approvals.list({ pendingOnly: true, limit: 10 })).toEqual([]);
    });

    it('deletes closed approvals decided before the cutoff, keeping pending ones', async () => {
      await approvals.create(pendingApproval('closed'));
      await approvals.create(pendingApproval('open'));
      await approvals.decide('closed', { decision: 'deny', decided_by: 'api_key', decided_at: T1 });
      expect(await approvals.pruneClosedBefore('2026-01-02T00:00:00.000Z')).toBe(1);
      expect((await approvals.list({ pendingOnly: false, limit: 10 })).map((a) => a.id)).toEqual(['open']);
    });

    // Registered only where replicas share the store: on SQLite one process owns every approval.
    if (options.sharedByReplicas) it('closes only its own pending approvals at restart; a decision on one replica is read on the other', async () => {
      await approvals.create(pendingApproval('mine'));
      await another!.create(pendingApproval('theirs'));
      expect((await approvals.closeOwnPending({ decision: 'interrupted', decided_by: 'system', decided_at: T1 })).map((a) => a.id)).toEqual(['mine']);
      await approvals.decide('theirs', { decision: 'allow_once', decided_by: 'api_key', decided_at: T1 });
      expect((await another!.get('theirs'))?.decision).toBe('allow_once');
    });
  });
}
