import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditInput, AuditSink } from '../storage/ports/audit.js';
import { InteractiveApproval, type ApprovalOptions } from './approval.js';
import type { Denial } from './destination.js';

/** Records what would be audited; the audit log itself is exercised in the gateway tests. */
class RecordingSink implements AuditSink {
  readonly events: AuditInput[] = [];
  async emit(input: AuditInput): Promise<AuditEvent> {
    this.events.push(input);
    return { ...input, id: String(this.events.length), timestamp: '', severity: 'info', actor: null, source: null, subsystem: null, action: null, session_id: null, task_id: null, detail: input.detail ?? {} };
  }
}

/** A scripted terminal: each time a prompt appears, the next answer is typed (null = stay silent). */
function terminal(answers: (string | null)[], options: Partial<ApprovalOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const audit = new RecordingSink();
  let transcript = '';
  let prompts = 0;
  output.on('data', (chunk: Buffer) => {
    transcript += chunk.toString();
    const seen = transcript.split('[N]o: ').length - 1;
    while (prompts < seen) {
      const answer = answers[prompts++];
      if (answer !== null && answer !== undefined) setImmediate(() => input.write(answer));
    }
  });
  const approval = new InteractiveApproval({ input, output, isTTY: true, audit, timeoutMs: 5_000, ...options });
  return { approval, input, audit, prompts: () => prompts, transcript: () => transcript };
}

describe('InteractiveApproval', () => {
  it('y allows this one request and remembers nothing', async () => {
    const t = terminal(['y\n', 'n\n']);
    await expect(t.approval.promptUser('network_request', 'tool example.com:443', 's1')).resolves.toBe(true);
    expect(t.approval.checkRemembered('network_request', 'tool example.com:443', 's1')).toBe(false);
    await expect(t.approval.promptUser('network_request', 'tool example.com:443', 's1')).resolves.toBe(false);
    expect(t.prompts()).toBe(2);
    expect(t.audit.events.map((e) => [e.result, e.detail?.answer])).toEqual([['allow', 'once'], ['deny', 'deny']]);
  });

  it('n denies', async () => {
    const t = terminal(['n\n']);
    await expect(t.approval.promptUser('network_request', 'tool example.com:443', 's1')).resolves.toBe(false);
    expect(t.audit.events[0]).toMatchObject({ event_type: 'approval_answer', result: 'deny', session_id: 's1', detail: { answer: 'deny' } });
  });

  it('any other input denies (and is not echoed to the audit log)', async () => {
    const t = terminal(['sure, go ahead\n', '\n', 'yy\n']);
    for (let i = 0; i < 3; i++) await expect(t.approval.promptUser('network_request', 'd', 's1')).resolves.toBe(false);
    expect(t.audit.events.map((e) => e.detail?.answer)).toEqual(['deny', 'deny', 'deny']);
    expect(JSON.stringify(t.audit.events)).not.toContain('sure');
  });

  it('accepts answers in any case, across chunks, with surrounding spaces', async () => {
    const t = terminal(['  Y']);
    const result = t.approval.promptUser('network_request', 'd', 's1');
    await new Promise((resolve) => setTimeout(resolve, 20));
    t.input.write(' \r\n');
    await expect(result).resolves.toBe(true);
  });

  it('a remembers the pair for the session only, until the session ends', async () => {
    const t = terminal(['a\n', 'n\n', 'n\n']);
    await expect(t.approval.promptUser('network_request', 'tool example.com:443', 's1')).resolves.toBe(true);
    expect(t.approval.checkRemembered('network_request', 'tool example.com:443', 's1')).toBe(true);
    // Same pair in the same session: approved without a prompt.
    await expect(t.approval.promptUser('network_request', 'tool example.com:443', 's1')).resolves.toBe(true);
    expect(t.prompts()).toBe(1);
    // Different detail, different action, different session: not covered.
    expect(t.approval.checkRemembered('network_request', 'tool example.com:8443', 's1')).toBe(false);
    expect(t.approval.checkRemembered('network_rest_request', 'tool example.com:443', 's1')).toBe(false);
    expect(t.approval.checkRemembered('network_request', 'tool example.com:443', 's2')).toBe(false);
    await expect(t.approval.promptUser('network_request', 'tool example.com:443', 's2')).resolves.toBe(false);
    t.approval.endSession('s1');
    expect(t.approval.checkRemembered('network_request', 'tool example.com:443', 's1')).toBe(false);
    await expect(t.approval.promptUser('network_request', 'tool example.com:443', 's1')).resolves.toBe(false);
    expect(t.prompts()).toBe(3);
  });

  it('a without a session allows once but remembers nothing', async () => {
    const t = terminal(['a\n']);
    await expect(t.approval.promptUser('network_request', 'd')).resolves.toBe(true);
    expect(t.approval.checkRemembered('network_request', 'd')).toBe(false);
  });

  it('denies when nobody answers before the timeout', async () => {
    const t = terminal([null], { timeoutMs: 50 });
    await expect(t.approval.promptUser('network_request', 'd', 's1')).resolves.toBe(false);
    expect(t.audit.events[0]).toMatchObject({ result: 'deny', detail: { answer: 'timeout' } });
    expect(t.transcript()).toContain('no answer');
  });

  it('denies without prompting when input is not a terminal', async () => {
    const t = terminal(['y\n'], { isTTY: false });
    await expect(t.approval.promptUser('network_request', 'd', 's1')).resolves.toBe(false);
    expect(t.prompts()).toBe(0);
    expect(t.transcript()).toBe('');
  });

  it('asks one question at a time, in order', async () => {
    const t = terminal(['y\n', 'n\n', 'y\n']);
    const results = await Promise.all([
      t.approval.promptUser('network_request', 'first', 's1'),
      t.approval.promptUser('network_request', 'second', 's1'),
      t.approval.promptUser('network_request', 'third', 's1'),
    ]);
    expect(results).toEqual([true, false, true]);
    const order = ['first', 'second', 'third'].map((d) => t.transcript().indexOf(`: ${d}\n`));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(t.audit.events.map((e) => e.detail?.detail)).toEqual(['first', 'second', 'third']);
  });

  it('a queued prompt is covered by an earlier a answer for the same pair', async () => {
    const t = terminal(['a\n']);
    const both = await Promise.all([
      t.approval.promptUser('network_request', 'same', 's1'),
      t.approval.promptUser('network_request', 'same', 's1'),
    ]);
    expect(both).toEqual([true, true]);
    expect(t.prompts()).toBe(1);
  });

  it('ignores text typed before the prompt appeared', async () => {
    const t = terminal(['n\n']);
    t.input.write('y\n');
    await expect(t.approval.promptUser('network_request', 'd', 's1')).resolves.toBe(false);
  });

  it('never lets a detail write control characters to the terminal', async () => {
    const t = terminal(['n\n']);
    await t.approval.promptUser('network_request', 'evil\u001b[2Jdetail\r', 's1');
    expect(t.transcript()).not.toContain('\u001b');
    expect(t.transcript()).toContain('evil?[2Jdetail?');
  });

  it('bounds the remembered pairs per session and the number of sessions', async () => {
    const t = terminal(Array(6).fill('a\n'), { maxRememberedPerSession: 2, maxSessions: 2 });
    for (const d of ['d1', 'd2', 'd3']) await t.approval.promptUser('network_request', d, 's1');
    expect(['d1', 'd2', 'd3'].map((d) => t.approval.checkRemembered('network_request', d, 's1'))).toEqual([false, true, true]);
    await t.approval.promptUser('network_request', 'x', 's2');
    await t.approval.promptUser('network_request', 'x', 's3');
    expect(t.approval.checkRemembered('network_request', 'd3', 's1')).toBe(false);
    expect(t.approval.checkRemembered('network_request', 'x', 's3')).toBe(true);
  });

  it('denies at once when too many prompts are waiting', async () => {
    const t = terminal(['y\n'], { maxPending: 1 });
    const first = t.approval.promptUser('network_request', 'first', 's1');
    await expect(t.approval.promptUser('network_request', 'second', 's1')).resolves.toBe(false);
    await expect(first).resolves.toBe(true);
  });

  it('approve(): a for a refused host covers that scheme, host and port only; a over a REST deny rule counts as y', async () => {
    const t = terminal(['a\n', 'a\n', 'n\n', 'n\n']);
    const denial = (over: Partial<Denial>): Denial => ({
      allowed: false, stage: 'host', scheme: 'http', host: 'b.localhost', port: 18111, method: 'GET', path: '/public',
      category: 'tool', rule: null, reason: 'host b.localhost:18111 is not allowed', overridable: true, ...over,
    });
    const ask = (over: Partial<Denial>) => t.approval.approve({ denial: denial(over), method: 'GET', url: new URL('http://b.localhost/'), sessionId: 's1', taskId: null });
    await expect(ask({})).resolves.toBe(true);
    await expect(ask({ path: '/other' })).resolves.toBe(true); // remembered: no prompt
    expect(t.prompts()).toBe(1);
    const rest = { stage: 'rest' as const, path: '/admin/delete-all', rule: 'network.rest_policies[0]' };
    await expect(ask(rest)).resolves.toBe(true);
    expect(t.transcript()).toContain('GET http://b.localhost:18111/admin/delete-all (overrides network.rest_policies[0])');
    // The `a` given over the REST rule was not remembered: the same request is asked again (and denied).
    await expect(ask(rest)).resolves.toBe(false);
    await expect(ask({ scheme: 'https' })).resolves.toBe(false);
    expect(t.prompts()).toBe(4);
    // Every answer is audited with the session that asked, the REST one included.
    expect(t.audit.events.map((e) => [e.session_id, e.detail?.answer])).toEqual([['s1', 'always'], ['s1', 'always'], ['s1', 'deny'], ['s1', 'deny']]);
  });
});
