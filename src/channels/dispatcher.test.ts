import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log.js';
import { ChannelDispatcher, type ChannelRunner } from './dispatcher.js';
import { StorageUnavailableError } from '../storage/ports/errors.js';
import { AgentError } from '../contracts/agent-errors.js';
import type { RunRecord } from '../storage/ports/runs.js';

/** A runner whose runs finish only when the test says so. */
function scriptedRunner() {
  const started: { sessionId: string; message: string; finish: (response: string) => void }[] = [];
  const runner: ChannelRunner = {
    async startChannelRun({ sessionId, message }) {
      let finish!: (response: string) => void;
      const done = new Promise<RunRecord>((resolve) => {
        finish = (response) => resolve({ run_id: `r${started.length}`, response } as RunRecord);
      });
      const run_id = `r${started.length}`;
      started.push({ sessionId, message, finish });
      finished.set(run_id, done);
      return { run_id } as RunRecord;
    },
    whenRunFinished: (runId) => finished.get(runId)!,
  };
  const finished = new Map<string, Promise<RunRecord>>();
  return { runner, started };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ChannelDispatcher', () => {
  it('takes a message when the inbox announces it, without a clock, and stops listening when stopped', async () => {
    const messages: { sender: string; content: string }[] = [];
    let wake: (() => void) | undefined;
    const { runner, started } = scriptedRunner();
    const dispatcher = new ChannelDispatcher({
      inbox: {
        receive: () => messages.shift(),
        send: () => {},
        listen: (listener) => {
          wake = listener;
          return () => (wake = undefined);
        },
      },
      runner, sessionPrefix: 'webhook', log: createMemoryLogger(),
    });
    messages.push({ sender: 'a', content: 'before start' });
    dispatcher.start();
    // What the inbox held at the start is taken at once.
    expect(started.map((s) => s.message)).toEqual(['before start']);
    messages.push({ sender: 'b', content: 'pushed' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Nothing polls: the message waits until the inbox says so.
    expect(started.map((s) => s.message)).toEqual(['before start']);
    wake!();
    expect(started.map((s) => s.message)).toEqual(['before start', 'pushed']);
    started[0]!.finish('a');
    started[1]!.finish('b');
    await dispatcher.stop();
    expect(wake).toBeUndefined();
  });

  it('runs one message per sender at a time, in order, and sends each reply', async () => {
    const inbox = [
      { sender: 'a', content: 'a1' }, { sender: 'b', content: 'b1' }, { sender: 'a', content: 'a2' },
    ];
    const sent: string[] = [];
    const { runner, started } = scriptedRunner();
    const dispatcher = new ChannelDispatcher({
      inbox: { listen: () => () => {}, receive: () => inbox.shift(), send: (text) => sent.push(text) }, runner, sessionPrefix: 'webhook', log: createMemoryLogger(),
    });
    dispatcher.pump();
    expect(started.map((s) => `${s.sessionId}/${s.message}`)).toEqual(['webhook:a/a1', 'webhook:b/b1']);
    started[0]!.finish('reply a1');
    await tick();
    await tick();
    expect(started.map((s) => s.message)).toEqual(['a1', 'b1', 'a2']);
    expect(sent).toEqual(['reply a1']);
  });

  it('stops taking messages from the inbox while maxPending wait', async () => {
    const inbox = Array.from({ length: 10 }, (_, i) => ({ sender: 'same', content: `m${i}` }));
    const { runner, started } = scriptedRunner();
    const log = createMemoryLogger();
    const dispatcher = new ChannelDispatcher({
      inbox: { listen: () => () => {}, receive: () => inbox.shift(), send: () => {} }, runner, sessionPrefix: 'webhook', log, maxPending: 3,
    });
    dispatcher.pump();
    // Three taken: one started, two waiting; the rest stay in the channel's own bounded queue.
    expect(started).toHaveLength(1);
    expect(inbox).toHaveLength(7);
    dispatcher.pump();
    expect(inbox).toHaveLength(6);
    expect(started).toHaveLength(1);
    const stopped = dispatcher.stop();
    started[0]!.finish('done');
    // Taken from the inbox and never started: the caller is told how many.
    expect(await stopped).toBe(3);
  });

  it('settles each message once its run exists, and a refused one too, but not one refused by shutdown', async () => {
    const messages = [
      { sender: 'a', content: 'ok', runId: 'run_ok' },
      { sender: 'b', content: 'over budget', runId: 'run_refused' },
      { sender: 'c', content: 'late', runId: 'run_late' },
    ];
    const settled: string[] = [];
    const requested: (string | undefined)[] = [];
    const runner: ChannelRunner = {
      async startChannelRun({ message, runId }) {
        requested.push(runId);
        if (message === 'over budget') throw new AgentError('budget_exceeded', 'the session is over its budget');
        if (message === 'late') throw new AgentError('shutting_down', 'the service is shutting down');
        return { run_id: runId } as RunRecord;
      },
      whenRunFinished: async (runId) => ({ run_id: runId, response: 'r' }) as RunRecord,
    };
    const dispatcher = new ChannelDispatcher({
      inbox: { listen: () => () => {}, receive: () => messages.shift(), send: () => {}, settled: (m) => settled.push(m.runId) },
      runner, sessionPrefix: 'webhook', log: createMemoryLogger(),
    });
    dispatcher.pump();
    expect(await dispatcher.stop()).toBe(1);
    // The run gets the id the inbox chose.
    expect(requested).toEqual(['run_ok', 'run_refused', 'run_late']);
    expect(settled.sort()).toEqual(['run_ok', 'run_refused']);
  });

  it('leaves a message whose start failed on an unreachable database unsettled and offers it again, before the sender\'s next one', async () => {
    const messages = [
      { sender: 'a', content: 'first', runId: 'run_1' },
      { sender: 'a', content: 'second', runId: 'run_2' },
      { sender: 'b', content: 'refused', runId: 'run_b' },
    ];
    const settled: string[] = [];
    const sent: string[] = [];
    const attempts: string[] = [];
    let failures = 2;
    const runner: ChannelRunner = {
      async startChannelRun({ message, runId }) {
        attempts.push(message);
        if (message === 'refused') throw new AgentError('budget_exceeded', 'the session is over its budget');
        // Twice: once as the driver reports it, once as the agent wraps it.
        if (message === 'first' && failures-- > 0) {
          throw failures === 1 ? new StorageUnavailableError() : new AgentError('storage_unavailable', 'the database is unavailable: x');
        }
        return { run_id: runId } as RunRecord;
      },
      whenRunFinished: async (runId) => ({ run_id: runId, response: `done ${runId}` }) as RunRecord,
    };
    const log = createMemoryLogger();
    const dispatcher = new ChannelDispatcher({
      inbox: { listen: () => () => {}, receive: () => messages.shift(), send: (text) => sent.push(text), settled: (m) => settled.push(m.runId) },
      runner, sessionPrefix: 'webhook', log,
    });
    dispatcher.pump();
    await tick();
    // Not settled, no error reply; the sender's next message waits behind it.
    expect(settled).toEqual(['run_b']);
    expect(attempts).toEqual(['first', 'refused']);
    expect(sent).toEqual(['error: the session is over its budget']);
    await expect.poll(() => settled, { timeout: 5_000 }).toEqual(['run_b', 'run_1', 'run_2']);
    expect(attempts).toEqual(['first', 'refused', 'first', 'first', 'second']);
    expect(sent).toEqual(['error: the session is over its budget', 'done run_1', 'done run_2']);
    expect(log.lines.some((line) => line.includes('not started yet'))).toBe(true);
    expect(await dispatcher.stop()).toBe(0);
  });

  it('hands a message whose start failed on an unreachable database back to an inbox that retries itself', async () => {
    const messages = [{ sender: 'a', content: 'first', runId: 'run_1' }];
    const settled: string[] = [];
    const retried: [string, number][] = [];
    const runner: ChannelRunner = {
      async startChannelRun() {
        throw new StorageUnavailableError();
      },
      whenRunFinished: async () => null,
    };
    const dispatcher = new ChannelDispatcher({
      inbox: { listen: () => () => {}, receive: () => messages.shift(), send: () => {}, settled: (m) => settled.push(m.runId), retry: (m, after) => retried.push([m.runId, after]) },
      runner, sessionPrefix: 'webhook', log: createMemoryLogger(),
    });
    dispatcher.pump();
    await tick();
    await tick();
    expect(retried).toEqual([['run_1', 500]]);
    expect(settled).toEqual([]);
    expect(await dispatcher.stop()).toBe(0);
  });
});
