/**
 * Reads of the embedded engine run on their own sessions, with their values rendered as literals: a
 * read issued while a long parameterized write runs in the same process returns before the write ends.
 * The writes below are the statement forms ingestion uses (an INSERT ... SELECT, a lightweight DELETE,
 * the pending→confirmed ALTER UPDATE with mutations_sync), with parameters, made to last ~2 s by
 * sleepEachRow in their SELECT or WHERE: a duration of waiting, not of CPU, so the two shared cores of
 * a test run do not decide the outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '../../test/support/deps.ts';
import { EMBEDDED_READ_LANES } from './index.ts';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps('read_lanes', { migrate: false });
  await deps.clickhouse.command(
    't.create',
    `CREATE TABLE lanes (k UInt64, s String, status String) ENGINE = MergeTree ORDER BY k`,
  );
  await deps.clickhouse.command(
    't.fill',
    "INSERT INTO lanes SELECT number, toString(number), 'pending' FROM numbers({n:UInt64})",
    { n: 100_000 },
  );
});
afterAll(async () => deps?.close());

/** The API's read shape: values of several types bound to placeholders, rows as arrays. */
function apiShapedRead() {
  return deps.clickhouse.read<[string, string]>(
    't.read',
    `SELECT k, s FROM lanes WHERE k IN {ks:Array(UInt64)} AND s != {s:String} AND k >= {lo:UInt64}
     ORDER BY k DESC LIMIT {n:UInt32}`,
    { ks: [1, 2, 3], s: "'", lo: 0, n: 10 },
  );
}

/** Waits until a statement holding `marker` is running (system.processes: as the engine formats it). */
async function waitUntilRunning(marker: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await deps.clickhouse.query<{ n: string }>(
      't.processes',
      'SELECT count() AS n FROM system.processes WHERE position(query, {m:String}) > 0 AND position(query, {p:String}) = 0',
      { m: marker, p: 'system.processes' },
    );
    if (Number(rows[0]?.n) > 0) return;
    if (Date.now() > deadline) throw new Error(`The write ${marker} never showed in system.processes`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts `write`, waits until it runs, then reads: the read (both `read` and `query`) must come back
 * while the write still runs.
 */
async function readDuring(marker: string, write: () => Promise<void>) {
  let writeEnded = 0;
  const started = performance.now();
  const writing = write().then(() => {
    writeEnded = performance.now();
  });
  await waitUntilRunning(marker);
  const rows = await apiShapedRead();
  const queried = await deps.clickhouse.query<{ n: string }>(
    't.query',
    'SELECT count() AS n FROM lanes WHERE k < {k:UInt64}',
    { k: 10 },
  );
  const readEnded = performance.now();
  await writing;
  expect(rows).toEqual([
    ['3', '3'],
    ['2', '2'],
    ['1', '1'],
  ]);
  expect(Number(queried[0]!.n)).toBeGreaterThan(0);
  expect(writeEnded - started).toBeGreaterThan(1000);
  // The reads were issued after the write began and came back before it ended.
  expect(readEnded).toBeLessThan(writeEnded);
}

describe.runIf(process.env.CLICKHOUSE_URL === undefined)('reads of the embedded engine', () => {
  it('a read issued while a long parameterized INSERT runs returns before the insert finishes', async () => {
    await readDuring('INSERT INTO lanes', () =>
      deps.clickhouse.command(
        't.long-insert',
        `INSERT INTO lanes SELECT 1000000 + number, toString(sleepEachRow(0.5)), 'pending'
         FROM numbers({n:UInt64}) SETTINGS max_block_size = 1`,
        { n: 4 },
      ),
    );
  });

  it('a read issued while a long parameterized DELETE runs returns before the delete finishes', async () => {
    await readDuring('DELETE FROM lanes', () =>
      deps.clickhouse.command(
        't.long-delete',
        `DELETE FROM lanes WHERE k >= {from:UInt64} AND k <= {to:UInt64} AND sleepEachRow(0.5) = 0
         SETTINGS allow_nondeterministic_mutations = 1`,
        { from: 1_000_000, to: 1_000_003 },
      ),
    );
  });

  it('a read issued while a long pending→confirmed UPDATE runs returns before the update finishes', async () => {
    await readDuring('ALTER TABLE lanes', () =>
      deps.clickhouse.command(
        't.long-update',
        `ALTER TABLE lanes UPDATE status = 'confirmed'
         WHERE k <= {block:UInt64} AND status = 'pending' AND sleepEachRow(0.5) = 0
         SETTINGS mutations_sync = 1, allow_nondeterministic_mutations = 1`,
        { block: 3 },
      ),
    );
  });

  it(`reads run side by side, ${EMBEDDED_READ_LANES} at a time, and a further one waits for a lane`, async () => {
    const slowRead = () =>
      deps.clickhouse.read(
        't.slow-read',
        'SELECT sleepEachRow(0.5) FROM numbers({n:UInt64}) SETTINGS max_block_size = 1',
        { n: 2 },
      );
    const timed = async (n: number) => {
      const started = performance.now();
      await Promise.all(Array.from({ length: n }, slowRead));
      return performance.now() - started;
    };
    // One read alone takes ~1 s. As many as there are lanes run at once (one at a time they would take
    // EMBEDDED_READ_LANES s); one more waits for a free lane, not inside the engine.
    const atOnce = await timed(EMBEDDED_READ_LANES);
    expect(atOnce).toBeGreaterThan(900);
    expect(atOnce).toBeLessThan(1000 * EMBEDDED_READ_LANES - 300);
    const oneMore = await timed(EMBEDDED_READ_LANES + 1);
    expect(oneMore).toBeGreaterThan(1900);
    expect(oneMore).toBeLessThan(2700);
  });

  it('the base settings hold on the read lanes and on the main session', async () => {
    const sql =
      "SELECT getSetting('output_format_json_quote_64bit_integers') AS q, getSetting('date_time_output_format') AS f";
    const onRead = await deps.clickhouse.query('t.settings', sql);
    expect(onRead).toEqual([{ q: true, f: 'iso' }]);
    const rs = await deps.clickhouse.client.query({ query: sql, format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([{ q: true, f: 'iso' }]);
  });
});
