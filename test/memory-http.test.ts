import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewTurn, SearchResult, Turn, TurnStore } from '../src/storage/ports/turns.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let store: TurnStore;

beforeAll(async () => {
  t = await startTestApp();
  store = t.app.memory;
});

afterAll(async () => {
  await t?.close();
});

const add = async (content: string, session_id = 'sess_http', extra: Partial<NewTurn> = {}): Promise<Turn> =>
  (await store.addMany([{ session_id, role: 'user', content, provider: 'offline', ...extra }]))[0]!;

async function json<T>(res: Response, status: number): Promise<T> {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  return (await res.json()) as T;
}

const search = async (query: string): Promise<SearchResult[]> =>
  (await json<{ status: 'ok'; data: { results: SearchResult[] } }>(await t.request(`/api/v1/memory/search?${query}`), 200)).data.results;

const errorOf = async (res: Response, status: number): Promise<string> => {
  const body = await json<{ status: string; error: string }>(res, status);
  expect(body.status).toBe('error');
  return body.error;
};

const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  t.request(path, {
    method: 'POST',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The web.memory audit events about one turn (every test uses its own turns and words). */
const memoryAudit = (turnId: string) =>
  (sqliteOf(t.app).prepare(`SELECT action, result, category, session_id, detail FROM audit_events
    WHERE event_type = 'web.memory' ORDER BY seq`).all() as { action: string; result: string; category: string; session_id: string; detail: string }[])
    .filter((e) => (JSON.parse(e.detail) as { turn_id?: string }).turn_id === turnId);

describe('GET /api/v1/memory/search', () => {
  it('finds turns with all words in any order, with the result fields', async () => {
    const hit = await add('planning the garden party for saturday', 'sess_http', { role: 'assistant' });
    await add('garden tools only');
    const results = await search(`q=${encodeURIComponent('saturday GARDEN')}`);
    expect(results).toHaveLength(1);
    expect(results[0]).toEqual({
      id: hit.id, session_id: 'sess_http', role: 'assistant', provider: 'offline', timestamp: hit.timestamp,
      content: 'planning the garden party for saturday',
      pinned: false, preview: 'planning the garden party for saturday', score: expect.any(Number),
    });
  });

  it('carries the whole content of a long turn next to its short preview (docs/resources.md#turns-and-memory)', async () => {
    const long = `${'lorem ipsum dolor '.repeat(30)}the kumquat clause ${'sit amet consectetur '.repeat(30)}`.trim();
    const hit = await add(long, 'sess_long');
    const [result] = await search('q=kumquat');
    expect(result!.id).toBe(hit.id);
    expect(result!.content).toBe(long);
    expect(result!.preview.length).toBeLessThanOrEqual(200);
    expect(result!.preview).toContain('kumquat');
    expect(long.length).toBeGreaterThan(500);
  });

  it('scopes by session_id', async () => {
    await add('shared subject', 'sess_one');
    const two = await add('shared subject', 'sess_two');
    expect((await search('q=shared&session_id=sess_two')).map((r) => r.id)).toEqual([two.id]);
    expect(await search('q=shared&session_id=sess_three')).toEqual([]);
  });

  it('treats FTS5 syntax as words and answers punctuation-only queries with no results', async () => {
    await add('alpha beta');
    await add('alpha or gamma');
    expect(await search(`q=${encodeURIComponent('alpha OR beta')}`)).toEqual([]);
    expect(await search(`q=${encodeURIComponent('alp*')}`)).toEqual([]);
    expect(await search(`q=${encodeURIComponent('NEAR("alpha" "beta")')}`)).toEqual([]);
    expect(await search(`q=${encodeURIComponent('"alpha')}`)).toHaveLength(2);
    expect(await search(`q=${encodeURIComponent('" * - : ()')}`)).toEqual([]);
  });

  it('limits: default 10, clamped to 1..100, non-numbers refused', async () => {
    store.addMany(Array.from({ length: 105 }, (_, i) => ({ session_id: 's', role: 'user' as const, provider: null, content: `bulk entry ${i}` })));
    expect(await search('q=bulk')).toHaveLength(10);
    expect(await search('q=bulk&limit=3')).toHaveLength(3);
    expect(await search('q=bulk&limit=0')).toHaveLength(1);
    expect(await search('q=bulk&limit=-5')).toHaveLength(1);
    expect(await search('q=bulk&limit=1000')).toHaveLength(100);
    expect(await errorOf(await t.request('/api/v1/memory/search?q=bulk&limit=ten'), 400)).toBe('limit must be an integer');
    expect(await errorOf(await t.request('/api/v1/memory/search?q=bulk&limit=2.5'), 400)).toBe('limit must be an integer');
  });

  it('requires q', async () => {
    expect(await errorOf(await t.request('/api/v1/memory/search'), 400)).toMatch(/q/);
    expect(await errorOf(await t.request('/api/v1/memory/search?q='), 400)).toMatch(/q/);
    expect(await errorOf(await t.request(`/api/v1/memory/search?q=${'a'.repeat(1001)}`), 400)).toMatch(/q/);
    const words = Array.from({ length: 33 }, (_, i) => `w${i}`).join('+');
    expect(await errorOf(await t.request(`/api/v1/memory/search?q=${words}`), 400)).toBe('q must have at most 32 distinct words');
  });

  it('requires the API key', async () => {
    const res = await fetch(`${t.url}/api/v1/memory/search?q=x`);
    expect(res.status).toBe(401);
  });
});

describe('POST /api/v1/memory/turns/:id/pin', () => {
  it('pins with no body, unpins with pinned:false, and audits each without the content', async () => {
    const turn = await add('confidential zebra notes', 'sess_pin');
    const pinned = await json<{ data: unknown }>(await post(`/api/v1/memory/turns/${turn.id}/pin`), 200);
    expect(pinned).toEqual({ status: 'ok', data: { id: turn.id, pinned: true } });
    expect((await store.get(turn.id))!.pinned).toBe(true);
    expect((await search('q=zebra'))[0]!.pinned).toBe(true);

    const unpinned = await json<{ data: unknown }>(await post(`/api/v1/memory/turns/${turn.id}/pin`, { pinned: false }), 200);
    expect(unpinned).toEqual({ status: 'ok', data: { id: turn.id, pinned: false } });
    expect((await store.get(turn.id))!.pinned).toBe(false);

    // An empty JSON body is "no body": pin.
    await json(await post(`/api/v1/memory/turns/${turn.id}/pin`, ''), 200);
    expect((await store.get(turn.id))!.pinned).toBe(true);

    const events = memoryAudit(turn.id);
    expect(events.map((e) => [e.action, e.result, e.category, e.session_id])).toEqual([
      ['pin', 'allow', 'web', 'sess_pin'], ['unpin', 'allow', 'web', 'sess_pin'], ['pin', 'allow', 'web', 'sess_pin'],
    ]);
    expect(JSON.parse(events[0]!.detail)).toMatchObject({ turn_id: turn.id });
    expect(events.some((e) => e.detail.includes('zebra'))).toBe(false);
  });

  it.each([
    [{ pinned: 'false' }, 'pinned'],
    [{ pinned: 0 }, 'pinned'],
    [{ pinned: null }, 'pinned'],
    [[true], 'body'],
    ['true', 'body'],
    [{ pinned: true, extra: 1 }, 'extra'],
  ])('refuses body %j with 400', async (body, mentions) => {
    const turn = await add('pin target');
    const error = await errorOf(await post(`/api/v1/memory/turns/${turn.id}/pin`, JSON.stringify(body)), 400);
    expect(error).toContain(mentions);
    expect((await store.get(turn.id))!.pinned).toBe(false);
  });

  it('answers 404 for an unknown turn', async () => {
    expect(await errorOf(await post('/api/v1/memory/turns/turn_nope/pin', { pinned: true }), 404)).toBe('Turn not found');
  });
});

describe('DELETE /api/v1/memory/turns/:id', () => {
  it('removes the turn from search and history at once, audited without content', async () => {
    const doomed = await add('obsolete walrus memo', 'sess_del');
    const kept = await add('walrus facts', 'sess_del');
    const res = await t.request(`/api/v1/memory/turns/${doomed.id}`, { method: 'DELETE' });
    expect(await json(res, 200)).toEqual({ status: 'ok', data: { id: doomed.id, deleted: true } });
    expect((await search('q=walrus')).map((r) => r.id)).toEqual([kept.id]);
    expect((await store.history('sess_del', 10)).map((x) => x.id)).toEqual([kept.id]);
    const [event] = memoryAudit(doomed.id).filter((e) => e.action === 'delete');
    expect(event).toMatchObject({ result: 'allow', category: 'web', session_id: 'sess_del' });
    // Nothing of the turn's content; the request that deleted it is named.
    expect(JSON.parse(event!.detail)).toEqual({ turn_id: doomed.id, request_id: res.headers.get('x-request-id') });

    expect(await errorOf(await t.request(`/api/v1/memory/turns/${doomed.id}`, { method: 'DELETE' }), 404)).toBe('Turn not found');
  });

  it('says which methods a memory path has', async () => {
    const res = await t.request('/api/v1/memory/turns/turn_x', { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('DELETE');
  });
});

it('publishes the memory routes in the OpenAPI document', async () => {
  const doc = await json<{ paths: Record<string, Record<string, { tags?: string[] }>> }>(await t.request('/api/v1/openapi.json'), 200);
  expect(doc.paths['/api/v1/memory/search']?.get?.tags).toEqual(['memory']);
  expect(Object.keys(doc.paths['/api/v1/memory/turns/{id}/pin'] ?? {})).toEqual(['post']);
  expect(Object.keys(doc.paths['/api/v1/memory/turns/{id}'] ?? {})).toEqual(['delete']);
});
