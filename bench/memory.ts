import { statSync } from 'node:fs';
import { Agent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { matchExpression, queryWords } from '../src/storage/ports/turn-query.js';
import type { NewTurn, TurnStore } from '../src/storage/ports/turns.js';
import type { Database } from '../src/storage/sqlite/database.js';
import { DEFAULT_SEARCH_TUNING } from '../src/storage/sqlite/turn-search.js';
import { getJson } from './get-json.js';
import { startSqliteApp } from './sqlite-app.js';
import { pct, round, seededRandom } from './stats.js';
import type { ScenarioResult } from './types.js';
import { homeFile } from '../src/config/home-layout.js';

/**
 * Memory search on a million turns: load time through the store, then search latency per word
 * class (rare, medium, very common) through real HTTP on the real app, against the same search
 * run directly in the same process (no HTTP) and served by a bare node:http handler; then an age
 * cleanup of 2% of the turns, timing each of its transactions.
 */
export interface MemoryBenchOptions {
  turns?: number;
  /** Queries per word (the p99 of each class is over words × repeats samples). */
  repeats?: number;
}

const API_KEY = 'bench-memory-key-0123456789';
const LOAD_BATCH = 50_000;
const SESSION_TURNS = 40;
const HISTORY_DAYS = 400;
const DAY_MS = 86_400_000;

export async function memoryScenario(options: MemoryBenchOptions = {}): Promise<ScenarioResult[]> {
  const turns = options.turns ?? 1_000_000;
  const repeats = options.repeats ?? 100;
  const { app, home, storage, close } = await startSqliteApp('memory', API_KEY);
  const store = app.memory;
  // The app's SQLite file: the unbounded-rank baseline and the cleanup timing use it directly.
  const database = storage.database;
  const bare = await startBareSearch(store);
  try {
    const url = await app.listen();
    const corpus = new Corpus(turns);
    // Only the writes are timed: generating the text is the benchmark's cost, not the store's.
    let loadMs = 0;
    for (let from = 0; from < turns; from += LOAD_BATCH) {
      const batch = corpus.batch(from, Math.min(LOAD_BATCH, turns - from));
      const started = performance.now();
      await store.addMany(batch);
      loadMs += performance.now() - started;
    }
    const loadS = loadMs / 1000;
    database.db.pragma('wal_checkpoint(TRUNCATE)');
    const dbMb = statSync(homeFile(home, 'database')).size / 1e6;

    const classes = {
      rare: corpus.wordsWithDf(20, 200, 10),
      medium: corpus.wordsWithDf(2_000, 20_000, 10),
      common: corpus.mostCommon(3),
    };
    const direct = async (word: string) => (await store.search(word, { limit: 10 })).length;
    const measured: Record<string, { http: number[]; bare: number[]; direct: number[] }> = {};
    for (const [name, words] of Object.entries(classes)) {
      const list = words.map((w) => w.word);
      measured[name] = {
        http: await sampleOverHttp(url, list, repeats),
        bare: await sampleOverHttp(bare.url, list, repeats),
        direct: await sample(list, repeats, direct),
      };
    }

    const topWord = classes.common[0]!.word;
    const unbounded = await sample([topWord], 5, async (w) => unboundedRank(database, w));
    const scopedCommon = await sample([topWord], repeats, async (w) => (await store.search(w, { limit: 10, sessionId: 'sess_123' })).length);
    const countMs = await sample(['-'], 5, async () => store.count());
    const cleanup = await measureCleanup(database, store, turns);

    const results: ScenarioResult[] = [{
      scenario: `memory: load ${turns.toLocaleString('en')} turns through the store`,
      figures: { load_s: round(loadS), turns_per_s: Math.round(turns / loadS), db_mb: Math.round(dbMb), count_ms_p50: round(pct(countMs, 50)), load_average_1m: round(loadavg()[0]!) },
      goal: 'load < 60 s',
      met: loadS < 60,
    }];
    for (const [name, m] of Object.entries(measured)) {
      const words = classes[name as keyof typeof classes];
      const figures = {
        words: words.length,
        df_range: `${Math.min(...words.map((w) => w.df))}..${Math.max(...words.map((w) => w.df))}`,
        http_p50_ms: round(pct(m.http, 50)), http_p99_ms: round(pct(m.http, 99)), http_max_ms: round(pct(m.http, 100)),
        bare_http_p50_ms: round(pct(m.bare, 50)), bare_http_p99_ms: round(pct(m.bare, 99)),
        direct_p50_ms: round(pct(m.direct, 50)), direct_p99_ms: round(pct(m.direct, 99)), direct_max_ms: round(pct(m.direct, 100)),
        http_vs_bare_p99: round(pct(m.http, 99) / pct(m.bare, 99)),
        http_vs_direct_p99: round(pct(m.http, 99) / pct(m.direct, 99)),
      };
      if (name === 'common') {
        results.push({
          scenario: `memory: search, very common words (top ${words.length}), newest ${DEFAULT_SEARCH_TUNING.candidates} matches ranked`,
          figures: {
            ...figures, fts5_bm25_all_matches_p50_ms: round(pct(unbounded, 50)),
            scoped_top_word_p99_ms: round(pct(scopedCommon, 99)),
          },
          goal: 'http max <= 50 ms and http p99 <= 1.5 x direct p99',
          met: pct(m.http, 100) <= 50 && pct(m.http, 99) <= 1.5 * pct(m.direct, 99),
        });
      } else {
        results.push({
          scenario: `memory: search, ${name} words`,
          figures,
          // A sub-millisecond search cannot be within 1.5x of itself once any HTTP server carries it
          // (the bare node:http one included), so here the goal is the absolute one; the ratios
          // are reported for reading.
          goal: 'http p99 <= 10 ms',
          met: pct(m.http, 99) <= 10,
          headline: {
            agentd: `p99 ${round(pct(m.http, 99))} ms`,
            baseline: `p99 ${round(pct(m.bare, 99))} ms (same search on bare node:http)`,
            ratio: round(pct(m.http, 99) / pct(m.bare, 99)),
          },
        });
      }
    }
    results.push({
      scenario: `memory: age cleanup of ${cleanup.removed!.toLocaleString('en')} turns in adaptive slices`,
      figures: cleanup,
      goal: 'cleanup transactions p99 <= 50 ms (wall)',
      met: cleanup.tx_wall_p99_ms! <= 50,
    });
    return results;
  } finally {
    await new Promise<void>((resolve) => bare.server.close(() => resolve()));
    await close();
  }
}

/** FTS5's own ranking over every match (`ORDER BY rank LIMIT`): what the store avoids. */
function unboundedRank(database: Database, word: string): number {
  const match = matchExpression(queryWords(word));
  return database.db.prepare('SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rank LIMIT 10').all(match).length;
}

/** A bare node:http server answering the same search as JSON: the floor for any HTTP search. */
async function startBareSearch(store: TurnStore): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
    store.search(q, { limit: 10 }).then((results) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', data: { results } }));
    }, (error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'error', error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * `sample` of GET /api/v1/memory/search on `base`, on one kept-alive connection of its own, closed
 * once the phase is done. A connection kept across phases would sit idle while the others run in
 * this same process, whose direct searches hold the event loop for seconds at a time under load;
 * a request written on it as the server closes it for idleness (keep-alive timeout, 5 s) fails
 * with read ECONNRESET. Within a phase the requests follow each other with no idle time.
 */
async function sampleOverHttp(base: string, words: string[], repeats: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    return await sample(words, repeats, (word) =>
      getJson<{ results: unknown[] }>(agent, `${base}/api/v1/memory/search?q=${encodeURIComponent(word)}&limit=10`, API_KEY).then((data) => data.results.length));
  } finally {
    agent.destroy();
  }
}

/** Latency in ms of each call, words round-robin, after one unmeasured warm-up pass. */
async function sample(words: string[], repeats: number, call: (word: string) => Promise<number>): Promise<number[]> {
  for (const word of words) if ((await call(word)) === 0) throw new Error(`no results for "${word}"`);
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    for (const word of words) {
      const start = performance.now();
      await call(word);
      times.push(performance.now() - start);
    }
  }
  return times;
}

/**
 * Delete the oldest ~2% by age, watching the event loop and timing each cleanup transaction
 * (wall and CPU: on a shared machine the wall time of a slice includes waiting for a CPU).
 */
async function measureCleanup(database: Database, store: TurnStore, turns: number): Promise<Record<string, number>> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const original = database.transaction.bind(database);
  database.transaction = <T>(fn: () => T): T => {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    try {
      return original(fn);
    } finally {
      const used = process.cpuUsage(cpuStarted);
      wall.push(performance.now() - started);
      cpu.push((used.user + used.system) / 1000);
    }
  };
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const start = performance.now();
  try {
    const removed = await store.cleanupOlderThan(HISTORY_DAYS * 0.98);
    if (removed < turns * 0.01) throw new Error(`cleanup removed only ${removed} turns`);
    return {
      removed,
      total_s: round((performance.now() - start) / 1000),
      transactions: wall.length,
      tx_wall_p50_ms: round(pct(wall, 50)), tx_wall_p99_ms: round(pct(wall, 99)), tx_wall_max_ms: round(pct(wall, 100)),
      tx_cpu_p99_ms: round(pct(cpu, 99)), tx_cpu_max_ms: round(pct(cpu, 100)),
      event_loop_max_block_ms: round(histogram.max / 1e6),
    };
  } finally {
    histogram.disable();
    database.transaction = original;
  }
}


/**
 * Synthetic but realistic conversation text: a vocabulary of common English words followed by a
 * long tail of invented words, drawn with a Zipf distribution (the k-th word ~ 1/k), so the top
 * words occur in most turns and tail words in a handful. Seeded, so every run loads the same text.
 */
export class Corpus {
  private readonly vocabulary: string[];
  private readonly cumulative: Float64Array;
  private readonly df: Int32Array;
  private readonly lastDoc: Int32Array;
  private readonly random = seededRandom(20240601);
  private readonly start = Date.now() - HISTORY_DAYS * DAY_MS;

  constructor(private readonly total: number) {
    this.vocabulary = buildVocabulary(60_000, this.random);
    this.cumulative = new Float64Array(this.vocabulary.length);
    let sum = 0;
    for (let k = 0; k < this.vocabulary.length; k++) this.cumulative[k] = sum += 1 / (k + 1);
    for (let k = 0; k < this.vocabulary.length; k++) this.cumulative[k]! /= sum;
    this.df = new Int32Array(this.vocabulary.length);
    this.lastDoc = new Int32Array(this.vocabulary.length).fill(-1);
  }

  batch(from: number, size: number): NewTurn[] {
    const out: NewTurn[] = [];
    for (let i = from; i < from + size; i++) {
      const assistant = i % 2 === 1;
      out.push({
        session_id: `sess_${Math.floor(i / SESSION_TURNS)}`,
        role: assistant ? 'assistant' : 'user',
        provider: 'offline',
        content: this.text(i, assistant ? 12 + Math.floor(this.random() * 40) : 3 + Math.floor(this.random() * 20)),
        timestamp: new Date(this.start + (i / this.total) * HISTORY_DAYS * DAY_MS).toISOString(),
      });
    }
    return out;
  }

  /** Words whose document frequency lies in [min, max], spread over that band. */
  wordsWithDf(min: number, max: number, count: number): { word: string; df: number }[] {
    const band = [...this.df.keys()].filter((k) => this.df[k]! >= min && this.df[k]! <= max);
    if (band.length === 0) throw new Error(`no word with df in ${min}..${max}`);
    const step = Math.max(1, Math.floor(band.length / count));
    return band.filter((_, i) => i % step === 0).slice(0, count).map((k) => ({ word: this.vocabulary[k]!, df: this.df[k]! }));
  }

  mostCommon(count: number): { word: string; df: number }[] {
    return [...this.df.keys()].sort((a, b) => this.df[b]! - this.df[a]!).slice(0, count)
      .map((k) => ({ word: this.vocabulary[k]!, df: this.df[k]! }));
  }

  private text(doc: number, length: number): string {
    const words: string[] = [];
    for (let n = 0; n < length; n++) {
      const k = this.draw();
      if (this.lastDoc[k] !== doc) {
        this.lastDoc[k] = doc;
        this.df[k]!++;
      }
      let word = this.vocabulary[k]!;
      if (n === 0) word = word[0]!.toUpperCase() + word.slice(1);
      words.push(word);
      if (n < length - 1 && this.random() < 0.08) words[words.length - 1] += this.random() < 0.5 ? ',' : '.';
    }
    return `${words.join(' ')}.`;
  }

  private draw(): number {
    const u = this.random();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

const COMMON_WORDS = (
  'the be to of and a in that have i it for not on with he as you do at this but his by from they we say her she ' +
  'or an will my one all would there their what so up out if about who get which go me when make can like time no ' +
  'just him know take people into year your good some could them see other than then now look only come its over ' +
  'think also back after use two how our work first well way even new want because any these give day most us ' +
  'question answer search memory file server error request token model tool session schedule result data'
).split(' ');

function buildVocabulary(size: number, random: () => number): string[] {
  const onsets = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'st', 'tr', 'pl', 'gr', 'sh'];
  const nuclei = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'io'];
  const codas = ['', '', 'n', 'r', 's', 'l', 'x', 'nd', 'st'];
  const pick = (list: string[]) => list[Math.floor(random() * list.length)]!;
  const words = new Set(COMMON_WORDS);
  while (words.size < size) {
    const syllables = 2 + Math.floor(random() * 3);
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(onsets) + pick(nuclei);
    words.add(word + pick(codas));
  }
  return [...words];
}
