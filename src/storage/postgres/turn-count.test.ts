import { describe, expect, it } from 'vitest';
import { postgresTestUrl } from '../../../test/helpers/postgres.js';
import { usePostgresStorage } from '../../../test/helpers/postgres-storage.js';
import type { NewTurn } from '../ports/turns.js';

const turn = (session_id: string, content: string): NewTurn => ({
  session_id, role: 'user', content, provider: 'offline', run_id: null, timestamp: '2026-01-01T00:00:00.000Z',
});

/** Turns stored through an API session count on it in the same statement (`TurnStore.sessionsWithTurns`). */
describe.skipIf(postgresTestUrl === null)('PostgreSQL turns counted on their API session', () => {
  const pg = usePostgresStorage({ poolSize: 2 });

  it('adds each session its own turns when asked, nothing when not, and passes over sessions that have ended', async () => {
    const sessions = pg.storage.sessionStore({});
    const [a, b] = [await sessions.create({ provider: 'offline' }), await sessions.create({ provider: 'offline' })];
    expect(pg.storage.turns.sessionsWithTurns).toBe(true);
    await pg.storage.turns.addMany([turn(a.id, 'one'), turn(b.id, 'two'), turn(a.id, 'three')], { countOnSession: true });
    expect((await sessions.get(a.id))!.turn_count).toBe(2);
    expect((await sessions.get(b.id))!.turn_count).toBe(1);
    await pg.storage.turns.addMany([turn(a.id, 'four')]);
    expect((await sessions.get(a.id))!.turn_count).toBe(2);
    // A channel session (no API session) or one that ended: the turns are stored, no count is made up.
    await sessions.delete(b.id);
    await pg.storage.turns.addMany([turn(b.id, 'five'), turn('job:nightly', 'six')], { countOnSession: true });
    expect(await sessions.get(b.id)).toBeNull();
    expect((await pg.storage.turns.history(b.id, 10)).map((t) => t.content)).toEqual(['two', 'five']);
    expect(await pg.storage.turns.count()).toBe(6);
  });
});
