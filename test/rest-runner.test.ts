/**
 * The REST stream runner (ingest/rest/runner.ts) on its own cases:
 * - a push source (an async queue a timer feeds, as a WebSocket's messages would be) runs through the same
 *   runner as the venues' page reads: each batch is written before the next is asked for, a failed record
 *   is quarantined once however often it comes, the summary counts every batch, the mark lands after the
 *   data and the venue's data version is bumped;
 * - a crash between a write and its commit (gamma's markets stream against its replica, through the
 *   shared store: the watermark commit fails after the rows are written) leaves the rows and no mark; the
 *   rerun writes no row twice and its mark lands once;
 * - a leased run: `skip` returns null while another holder has the lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { c, defineTable } from '../core/clickhouse/table.ts';
import { createDataVersions } from '../core/data-version.ts';
import { acquireLease } from '../core/lease.ts';
import { createWatermarks, type Watermarks } from '../core/watermarks.ts';
import { createHttpClient } from '../ingest/http/client.ts';
import type { InvalidRecord } from '../ingest/rest/records.ts';
import {
  defineStream,
  defineVenue,
  runStream,
  type StreamContext,
  type StreamSummary,
} from '../ingest/rest/runner.ts';
import { createGammaClient } from '../ingest/venues/gamma/client.ts';
import { gammaConfig } from '../ingest/venues/gamma/config.ts';
import { gamma } from '../ingest/venues/gamma/index.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState } from '../sim/world/state.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';
import { doubled, gammaDifferences, gammaTruth } from './support/gamma-truth.ts';

const START = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;

const TOY_TICKS = defineTable('toy_ticks', {
  id: c.text,
  price: c.f64,
  content_hash: c.hex(),
  observed_at: c.time,
});

interface Message {
  ticks: { id: string; price: number }[];
  invalid: InvalidRecord[];
}

/** An async queue: `push` from anywhere (a timer, a socket's handler), `close` ends the iteration. */
function asyncQueue<T>() {
  const items: T[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  return {
    push(x: T) {
      items.push(x);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncIterator<T> {
      for (;;) {
        if (items.length > 0) yield items.shift() as T;
        else if (closed) return;
        else await new Promise<void>((r) => (wake = r));
        wake = null;
      }
    },
  };
}

interface ToySummary extends StreamSummary {
  mode: 'live';
  read: number;
  written: number;
  messages: number;
  /** Rows stored when each message after the first arrived (the earlier ones written by then). */
  storedBefore: number[];
}

/** A feed of `messages`, one every 20 ms from a timer, then closed. */
function toyClient(messages: readonly Message[]) {
  return {
    clock: () => START,
    feed() {
      const q = asyncQueue<Message>();
      let i = 0;
      const timer = setInterval(() => {
        if (i < messages.length) q.push(messages[i++] as Message);
        else {
          clearInterval(timer);
          q.close();
        }
      }, 20);
      return q;
    },
  };
}
type ToyClient = ReturnType<typeof toyClient>;

async function* readFeed(client: ToyClient, ctx: StreamContext<'live', unknown, ToySummary>) {
  for await (const m of client.feed()) {
    if (ctx.summary.messages > 0) {
      const [r] = await ctx.clickhouse.query<{ n: string }>(
        'test.toy.n',
        'SELECT count() AS n FROM toy_ticks FINAL',
      );
      ctx.summary.storedBefore.push(Number(r?.n));
    }
    ctx.summary.messages++;
    ctx.account({ requests: 0, rereads: 0, invalid: m.invalid });
    yield m.ticks;
    ctx.step('message');
  }
}

const toy = (messages: readonly Message[]) =>
  defineVenue({
    code: 'toy',
    source: 'toy',
    config: gammaConfig,
    client: () => toyClient(messages),
    streams: [
      defineStream({
        name: 'ticks',
        modes: ['live'],
        leases: () => ['toy:ticks:lease'],
        every: [],
        summary: (mode: 'live'): ToySummary => ({
          mode,
          read: 0,
          written: 0,
          messages: 0,
          storedBefore: [],
          quarantined: 0,
          requests: 0,
          rereads: 0,
          ms: 0,
        }),
        read: readFeed,
        rows: (ticks: { id: string; price: number }[]) => ({ toy_ticks: ticks }),
        tables: [{ table: TOY_TICKS, key: 'id', counts: (s) => s }],
        marks: (ctx) => [{ stream: 'ticks', time: ctx.observedAt() }],
        finalStep: null,
        log: { message: 'Toy ticks' },
      }),
    ],
  });

const bad = (id: string): InvalidRecord => ({
  kind: 'tick',
  recordId: id,
  reason: '/price: expected',
  payload: '{}',
});

let deps: TestDeps;
let replicas: Replicas;

beforeAll(async () => {
  const catalog = generateCatalog({ seed: 'rest-runner', size: 'small', startTime: START });
  const state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + HOUR);
  replicas = await startReplicas({ catalog, state });
  deps = await createTestDeps('rest_runner');
  await deps.clickhouse.command(
    'test.toy.create',
    `CREATE TABLE IF NOT EXISTS toy_ticks (id String, price Float64, content_hash String,
       observed_at DateTime64(3, 'UTC')) ENGINE = ReplacingMergeTree(observed_at) ORDER BY id`,
  );
  // gammaTruth needs the world; kept on the closure of the crash test.
  truth = () => gammaTruth(catalog, state);
}, 120_000);

let truth: () => ReturnType<typeof gammaTruth>;

afterAll(async () => {
  await replicas?.close();
  await deps?.close();
});

describe('the REST stream runner', () => {
  it('runs a push source (a timer-fed queue) like a page read: batch by batch, one mark after the data', async () => {
    const messages: Message[] = [
      { ticks: [{ id: 'a', price: 0.5 }], invalid: [bad('x')] },
      {
        ticks: [
          { id: 'a', price: 0.5 },
          { id: 'b', price: 0.25 },
        ],
        invalid: [bad('x')],
      },
      { ticks: [{ id: 'a', price: 0.75 }], invalid: [bad('y')] },
    ];
    const venue = toy(messages);
    const steps: string[] = [];
    const versions = createDataVersions({ redis: deps.redis });
    const [before] = await versions.read(['venue:toy']);
    const s = await runStream(venue, 'ticks', deps, { mode: 'live', onProgress: (step) => steps.push(step) });
    expect(s.messages).toBe(3);
    // Each message's rows were stored before the next message was read.
    expect(s.storedBefore).toEqual([1, 2]);
    expect(steps).toEqual(['message', 'message', 'message']);
    // read: distinct keys per batch; written: new or changed rows (a repeated 'a' at 0.5 is not rewritten).
    expect([s.read, s.written]).toEqual([4, 3]);
    expect(s.quarantined).toBe(2);
    const q = await deps.clickhouse.query<{ record_id: string; n: string }>(
      'test.toy.q',
      "SELECT record_id, count() AS n FROM quarantine WHERE source = 'toy' GROUP BY record_id ORDER BY record_id",
    );
    expect(q.map((r) => [r.record_id, Number(r.n)])).toEqual([
      ['x', 1],
      ['y', 1],
    ]);
    const rows = await deps.clickhouse.query<{ id: string; price: number }>(
      'test.toy.rows',
      'SELECT id, price FROM toy_ticks FINAL ORDER BY id',
    );
    expect(rows).toEqual([
      { id: 'a', price: 0.75 },
      { id: 'b', price: 0.25 },
    ]);
    expect((await createWatermarks(deps.clickhouse).read('toy', 'ticks'))?.time).toBe(START);
    const [after] = await versions.read(['venue:toy']);
    expect(after).not.toBe(before);
  });

  it('a crash between the write and its commit leaves the rows and no mark; the rerun writes nothing twice', async () => {
    const client = () =>
      createGammaClient({
        pageSize: 4,
        http: createHttpClient({ baseUrl: replicas.urls.gamma, timeoutMs: 5_000, baseDelayMs: 20 }),
      });
    const real = createWatermarks(deps.clickhouse);
    let commits = 0;
    const crashing: Watermarks = {
      ...real,
      async commit() {
        throw new Error('killed before the commit');
      },
    };
    const counting: Watermarks = {
      ...real,
      async commit(mark, write) {
        commits++;
        return real.commit(mark, write);
      },
    };
    const at = START + HOUR;
    await expect(
      runStream(
        gamma,
        'markets',
        { ...deps, client: client(), now: () => at, watermarks: crashing },
        { mode: 'poll' },
      ),
    ).rejects.toThrow('killed before the commit');
    // The data is there, the mark is not.
    expect(await gammaDifferences(deps.clickhouse, truth())).toEqual([]);
    expect(await real.read('gamma', 'markets')).toBeNull();
    const count = async () =>
      Number(
        (
          await deps.clickhouse.query<{ n: string }>(
            'test.gamma.n',
            'SELECT (SELECT count() FROM gamma_markets) + (SELECT count() FROM gamma_events) AS n',
          )
        )[0]?.n,
      );
    const rowsAfterCrash = await count();
    expect(rowsAfterCrash).toBeGreaterThan(0);

    const s = await runStream(
      gamma,
      'markets',
      { ...deps, client: client(), now: () => at + 1, watermarks: counting },
      { mode: 'poll' },
    );
    expect([s.written, s.events.written]).toEqual([0, 0]);
    expect(s.read).toBeGreaterThan(0);
    expect(await count()).toBe(rowsAfterCrash);
    expect(await doubled(deps.clickhouse)).toEqual([]);
    expect(commits).toBe(1);
    expect((await real.read('gamma', 'markets'))?.time).toBe(at + 1);
  });

  it("a leased run ('skip') returns null while another holder has the lease, and runs once it is free", async () => {
    const venue = toy([{ ticks: [{ id: 'c', price: 1 }], invalid: [] }]);
    const lease = await acquireLease(deps.redis, 'toy:ticks:lease', 30_000);
    expect(lease.held).toBe(true);
    expect(await runStream(venue, 'ticks', deps, { mode: 'live', lease: 'skip' })).toBeNull();
    await lease.release();
    const s = await runStream(venue, 'ticks', deps, { mode: 'live', lease: 'skip' });
    expect(s?.written).toBe(1);
  });
});
