import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from './fakes/anthropic-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { spawnServe } from './helpers/cli.js';

// `agentd` runs from the bundle in dist/server (`npm test` builds first): what the bundle moves
// about (a worker thread's file, the pretty log, the source map) is checked on it here.
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function env(): NodeJS.ProcessEnv {
  const { SERVICE_API_KEY: _ignored, ...rest } = process.env;
  return rest;
}

describe('the bundled service', () => {
  it('answers an audit search from its query worker, and logs readably with --log-format pretty', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-bundle-'));
    const proc = spawnServe(['--home', join(dir, 'home'), '--port', '0', '--log-format', 'pretty'], env());
    const url = await proc.ready;
    const key = /API key: (\S+)/.exec(proc.stdout())![1]!;
    const search = await fetch(`${url}/api/v1/audit?q=started&limit=5`, { headers: { authorization: `Bearer ${key}` } });
    expect(search.status).toBe(200);
    const body = (await search.json()) as { data: { events: unknown[]; total: number } };
    expect(body.data.total).toBeGreaterThanOrEqual(0);
    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    // A worker whose file did not resolve is reported, and the query answered in the main thread.
    expect(proc.stderr()).not.toContain('audit query worker failed');
    // pino-pretty's lines (a time in brackets, the level as a word), not JSON.
    expect(proc.stderr()).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: REST API listening on /m);
    expect(proc.stderr()).not.toContain('{"level"');
    // The start kept the bundle's compiled code for the next, under the digest of the bundle's bytes
    // (docs/decisions.md#the-start-reuses-compiled-code).
    const kept = readFileSync('dist/server/cli.js.v8cache');
    expect(kept.subarray(0, 32).equals(createHash('sha256').update(readFileSync('dist/server/cli.js')).digest())).toBe(true);
  });

  it('answers through each hosted provider, whose SDK is a chunk of its own read on first use', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-bundle-'));
    const openai = await startFakeOpenAI();
    const anthropic = await startFakeAnthropic();
    const key = 'bundle-test-key-0123456789abcdef';
    writeFileSync(join(dir, 'config.yaml'), [
      'api:', `  api_key: ${key}`, '  port: 0',
      `providers: ${JSON.stringify({
        default: 'openai',
        openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: openai.baseUrl },
        anthropic: { api_key_env: 'ANTHROPIC_API_KEY', model: 'claude-haiku-4-5', base_url: anthropic.baseUrl },
      })}`,
      `network: ${JSON.stringify({ allowed_hosts: [openai.host, anthropic.host] })}`, '',
    ].join('\n'), { mode: 0o600 });
    const proc = spawnServe(['--home', dir], { ...env(), OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij', ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' });
    try {
      const url = await proc.ready;
      for (const [provider, upstream] of [['openai', openai], ['anthropic', anthropic]] as const) {
        const chat = await fetch(`${url}/api/v1/chat`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: `hello ${provider}`, provider }),
        });
        const body = (await chat.json()) as { data: { response: string } };
        // A chunk whose exports were read wrongly fails the call: 502 "… is not a constructor".
        expect(chat.status, JSON.stringify(body)).toBe(200);
        expect(body.data.response).not.toBe('');
        expect(upstream.requests).toHaveLength(1);
      }
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
      await Promise.all([openai.close(), anthropic.close()]);
    }
  });

  it('names the TypeScript sources in a stack trace', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-bundle-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, 'api: [\n');
    // What bin/agentd.js does, with the error's stack printed instead of its message alone.
    const bundle = `${resolve('dist/server')}/`;
    const script = `require(${JSON.stringify(`${bundle}stack-traces.js`)}).mapStackTracesToSources(${JSON.stringify(bundle)});
      const loader = require(${JSON.stringify(`${bundle}bundle-loader.js`)}).bundleLoader(${JSON.stringify(bundle)});
      loader.require('cli.js').main(['node', 'agentd', 'migrate', '--config', ${JSON.stringify(config)}]).catch((error) => console.log(error.stack));`;
    const run = spawnSync(process.execPath, ['-e', script], { env: env(), encoding: 'utf8' });
    expect(run.stdout).toContain('not valid YAML');
    expect(run.stdout).toMatch(/at loadConfig \(.*src\/config\/load\.ts:\d+:\d+\)/);
    // Every frame in the bundle is mapped, those of the packages bundled with it too.
    expect(run.stdout).toMatch(/at _Command\.migrateCommand \(.*src\/cli\.ts:\d+:\d+\)/);
    expect(run.stdout).toMatch(/\(.*node_modules\/commander\/lib\/command\.js:\d+:\d+\)/);
    expect(run.stdout).not.toContain('dist/server/');
  });
});
