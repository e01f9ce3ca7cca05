import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PolicyViolationError } from '../src/gateway/errors.js';
import { Gateway } from '../src/gateway/gateway.js';
import { InteractiveApproval } from '../src/policy/approval.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { loopbackPolicy, startHttp, type HttpServer } from './gateway-support.js';
import { quietLogger } from './helpers/log.js';

/**
 * The gateway is an object, not module state: two in one process (two apps, or an app and an
 * embedder) keep their own policy and their own "allow always" memory.
 */
let server: HttpServer;
const gateways: Gateway[] = [];

beforeAll(async () => {
  server = await startHttp((_req, res) => res.end('ok'));
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

function gateway(options: ConstructorParameters<typeof Gateway>[0]): Gateway {
  const g = new Gateway({ log: quietLogger, ...options });
  gateways.push(g);
  return g;
}

/** An operator at a terminal who gives the scripted answers in turn. */
function operator(answers: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let asked = 0;
  output.on('data', (chunk: Buffer) => {
    if (!chunk.toString().includes('[N]o: ')) return;
    const answer = answers[asked++];
    if (answer !== undefined) setImmediate(() => input.write(answer));
  });
  return { approval: new InteractiveApproval({ input, output, isTTY: true, timeoutMs: 2_000 }), asked: () => asked };
}

describe('two gateways in one process', () => {
  it('each enforces its own policy', async () => {
    const open = gateway({ policy: loopbackPolicy([server.port]) });
    const closed = gateway({ policy: NetworkPolicy.denyAll() });
    const before = server.connections();
    expect((await open.client({ category: 'tool' }).get(`${server.url}/`)).text()).toBe('ok');
    await expect(closed.client({ category: 'tool' }).get(`${server.url}/`)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(open.policy).not.toBe(closed.policy);
    expect(server.connections()).toBe(before + 1);
  });

  it('do not share approval memory: an "always" in one is not remembered by the other, nor forgotten by its session end', async () => {
    // A name nobody listed, resolving to the test server: refused by the host check until approved.
    const asking = () => NetworkPolicy.fromConfig({ interactive_approval: true, allowed_cidrs: ['127.0.0.1/32'] });
    const resolver = async () => ['127.0.0.1'];
    const first = operator(['a\n', 'n\n']);
    const second = operator(['n\n']);
    const a = gateway({ policy: asking(), approval: first.approval, resolver });
    const b = gateway({ policy: asking(), approval: second.approval, resolver });
    const url = `http://approve.test:${server.port}/`;
    const get = (g: Gateway) => g.client({ category: 'tool', sessionId: 'same-session' }).get(url);

    expect((await get(a)).status).toBe(200);
    expect(first.asked()).toBe(1);
    // Same session id, same request, other gateway: its operator is asked, and says no.
    await expect(get(b)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(second.asked()).toBe(1);
    // Ending the session in one gateway leaves the other's memory alone.
    b.endSession('same-session');
    expect((await get(a)).status).toBe(200);
    expect(first.asked()).toBe(1);
    // Ending it in the gateway that remembered clears it there.
    a.endSession('same-session');
    await expect(get(a)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(first.asked()).toBe(2);
  });

  it('each makes its own default approval when the policy asks for one', () => {
    const policy = NetworkPolicy.fromConfig({ interactive_approval: true });
    const a = gateway({ policy });
    const b = gateway({ policy });
    expect(a.approval).toBeInstanceOf(InteractiveApproval);
    expect(b.approval).toBeInstanceOf(InteractiveApproval);
    expect(a.approval).not.toBe(b.approval);
    expect(gateway({ policy: NetworkPolicy.fromConfig({}) }).approval).toBeUndefined();
  });
});
