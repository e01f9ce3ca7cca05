import { describe, expect, it } from 'vitest';
import { pendingApproval } from '../storage/contract/approval-store.js';
import type { RunEvent, RunEventName, RunRecord } from '../storage/ports/runs.js';
import { buildRunTrace } from './run-trace.js';

const run: RunRecord = {
  run_id: 'run_1', session_id: 'ses_1', message: 'm', status: 'complete', provider: null, resolved_provider: 'offline',
  created_at: '2026-01-01T00:00:00.000Z', started_at: '2026-01-01T00:00:00.250Z', finished_at: '2026-01-01T00:00:02.000Z',
  response: 'r', error: null, tools_used: ['calculator'], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
  source: 'api', job_id: null, model: 'offline', first_token_at: '2026-01-01T00:00:00.500Z',
};

function log(...entries: [RunEventName, Record<string, unknown>][]): RunEvent[] {
  return entries.map(([name, data], index) => ({ id: index + 1, name, data: JSON.stringify(data) }));
}

describe('buildRunTrace', () => {
  it('reads a call stored before results carried a preview and timestamps as nulls', () => {
    const trace = buildRunTrace(run, log(
      ['run.start', {}],
      ['tool.request', { call_id: 'c1', tool: 'calculator', arguments: { expression: '1+1' } }],
      ['tool.result', { call_id: 'c1', tool: 'calculator', is_error: false, duration_ms: 3 }],
    ), []);
    expect(trace.steps).toEqual([{
      call_id: 'c1', tool: 'calculator', arguments: { expression: '1+1' }, started_at: null, finished_at: null, duration_ms: 3,
      is_error: false, result_preview: null, result_truncated: false, error: null, approval: null,
    }]);
    expect(trace.timings).toEqual({
      queued_at: run.created_at, started_at: run.started_at, first_token_at: run.first_token_at, finished_at: run.finished_at,
      queue_ms: 250, total_ms: 2000,
    });
  });

  it('answers each result to the latest open call with its id (providers may reuse ids across steps)', () => {
    const trace = buildRunTrace(run, log(
      ['tool.request', { call_id: 'c1', tool: 'calculator', arguments: {} }],
      ['tool.result', { call_id: 'c1', tool: 'calculator', is_error: false, duration_ms: 1, result_preview: 'first' }],
      ['tool.request', { call_id: 'c1', tool: 'calculator', arguments: {} }],
      ['tool.result', { call_id: 'c1', tool: 'calculator', is_error: true, duration_ms: 2, result_preview: 'second', error: 'second' }],
      ['tool.request', { call_id: 'c2', tool: 'web_fetch', arguments: { url: 'https://example.com/' } }],
    ), []);
    expect(trace.steps.map((step) => [step.call_id, step.result_preview, step.is_error, step.finished_at])).toEqual([
      ['c1', 'first', false, null], ['c1', 'second', true, null], ['c2', null, null, null],
    ]);
  });

  it('prefers the tool approval of a call, and tells one no longer stored from its result event', () => {
    const stored = pendingApproval('apr_tool', {
      run_id: 'run_1', state: 'allowed', decision: 'allow_once', decided_by: 'api_key', decided_at: '2026-01-01T00:00:01.000Z',
    });
    const trace = buildRunTrace(run, log(
      ['tool.request', { call_id: 'c1', tool: 'calculator', arguments: {} }],
      ['approval.request', { approval_id: 'apr_gone' }],
      ['approval.result', { approval_id: 'apr_gone', decision: 'deny', decided_by: 'web_session:w1' }],
      ['approval.request', { approval_id: 'apr_tool' }],
      ['approval.result', { approval_id: 'apr_tool', decision: 'allow_once', decided_by: 'api_key' }],
      ['tool.result', { call_id: 'c1', tool: 'calculator', is_error: false, duration_ms: 1 }],
      ['tool.request', { call_id: 'c2', tool: 'web_fetch', arguments: {} }],
      ['approval.request', { approval_id: 'apr_gone' }],
      ['tool.result', { call_id: 'c2', tool: 'web_fetch', is_error: true, duration_ms: 1 }],
    ), [stored]);
    expect(trace.steps.map((step) => step.approval)).toEqual([
      { approval_id: 'apr_tool', status: 'allowed', decision: 'allow_once', decided_by: 'api_key', decided_at: '2026-01-01T00:00:01.000Z' },
      { approval_id: 'apr_gone', status: 'denied', decision: 'deny', decided_by: 'web_session:w1', decided_at: null },
    ]);
    expect(trace.approvals).toEqual([{
      approval_id: 'apr_tool', kind: 'tool', subject: 'calculator', status: 'allowed', decision: 'allow_once',
      created_at: stored.created_at, decided_at: '2026-01-01T00:00:01.000Z', decided_by: 'api_key',
    }]);
  });

  it('leaves the times not reached yet null for a run still queued', () => {
    const queued = { ...run, status: 'pending' as const, started_at: null, finished_at: null, first_token_at: null };
    expect(buildRunTrace(queued, [], []).timings).toEqual({
      queued_at: run.created_at, started_at: null, first_token_at: null, finished_at: null, queue_ms: null, total_ms: null,
    });
  });
});
