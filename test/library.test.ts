import { describe, expect, it } from 'vitest';

// The package's public entry as embedders import it (`import … from 'agentd'` resolves to the build).
describe('library surface', () => {
  it('exports the library surface from the built entry', async () => {
    const lib = (await import('agentd')) as Record<string, unknown>;
    for (const name of ['createApp', 'WebhookChannel', 'createClient', 'Gateway', 'PolicyViolationError', 'ResponseTooLargeError', 'RequestTimeoutError', 'InvalidUrlError', 'loadConfig']) {
      expect(typeof lib[name], name).toBe('function');
    }
    const { PolicyViolationError, createClient, NetworkPolicy } = lib as {
      PolicyViolationError: new (...args: never[]) => Error;
      NetworkPolicy: { denyAll(): unknown };
      createClient: (o: object) => { get(url: string): Promise<unknown>; close(): Promise<void> };
    };
    const client = createClient({ category: 'tool', policy: NetworkPolicy.denyAll() });
    await expect(client.get('http://example.com/')).rejects.toBeInstanceOf(PolicyViolationError);
    await client.close();
    // No policy at all: the client's private gateway fails closed.
    const unconfigured = createClient({ category: 'tool', log: () => undefined });
    await expect(unconfigured.get('http://example.com/')).rejects.toBeInstanceOf(PolicyViolationError);
    await unconfigured.close();
  });
});
