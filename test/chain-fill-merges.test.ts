/**
 * Merges of the hot alpha tables. alpha_fills' `by_token` projection across merges
 * (022_fill_projection_merges.sql): merges merge the projection's parts instead of rebuilding it, and what
 * the API reads through the projection must still equal the table after parts of distinct fills are
 * merged. Their merge fan-in (024_merge_fan_in.sql), and alpha_fills' part format by size
 * (025_compact_insert_parts.sql).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const PARTS = 3;
const ROWS_PER_PART = 3000;
const TOKENS = 7;

/** One insert (one part) of fills: distinct (maker, block, tx, log index), tokens spread over the rows. */
function insertPart(part: number): string {
  const base = part * ROWS_PER_PART;
  return `INSERT INTO alpha_fills (chain_id, block_number, block_hash, block_time, tx_hash, log_index, exchange,
      exchange_version, order_hash, maker, taker, role, side, token_id, maker_amount, taker_amount, shares, usd,
      status)
    SELECT 137, 1000 + intDiv(n, 10), concat('0xb', toString(intDiv(n, 10))),
      toDateTime64('2026-04-26 00:00:00', 3, 'UTC') + intDiv(n, 10), concat('0xt', toString(n)), toUInt32(n % 10),
      '0xe1', 2, concat('0xo', toString(n)), concat('0xm', toString(n % 13)), '0xe1', 'maker',
      if(n % 2 = 0, 'BUY', 'SELL'), toString(n % ${TOKENS}), 1000 + n, 2000 + n, 2000 + n, 1000 + n, 'confirmed'
    FROM (SELECT ${base} + number AS n FROM numbers(${ROWS_PER_PART}))`;
}

describe('alpha_fills projection merges', () => {
  let deps: TestDeps;
  beforeAll(async () => {
    deps = await createTestDeps('chain_fill_merges');
  });
  afterAll(async () => {
    await deps?.close();
  });

  it('keeps by_token equal to the table after parts are merged', async () => {
    const ch = deps.clickhouse;
    for (let p = 0; p < PARTS; p++) await ch.command('test.insert', insertPart(p));
    const partsBefore = await ch.query<{ n: string }>(
      'test.parts',
      "SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND table = 'alpha_fills' AND active",
    );
    expect(Number(partsBefore[0]!.n)).toBe(PARTS);

    await ch.command('test.optimize', 'OPTIMIZE TABLE alpha_fills FINAL');

    const parts = await ch.query<{ name: string; rows: string }>(
      'test.parts',
      "SELECT name, rows FROM system.parts WHERE database = currentDatabase() AND table = 'alpha_fills' AND active",
    );
    expect(parts).toHaveLength(1);
    expect(Number(parts[0]!.rows)).toBe(PARTS * ROWS_PER_PART);
    const projection = await ch.query<{ parent: string; rows: string }>(
      'test.projection',
      `SELECT parent_name AS parent, rows FROM system.projection_parts
       WHERE database = currentDatabase() AND table = 'alpha_fills' AND name = 'by_token' AND active`,
    );
    expect(projection).toEqual([{ parent: parts[0]!.name, rows: String(PARTS * ROWS_PER_PART) }]);

    for (let token = 0; token < TOKENS; token++) {
      const read = (settings: string) =>
        ch.query<{ tx_hash: string; log_index: number; usd: string }>(
          'test.read',
          `SELECT tx_hash, log_index, usd FROM alpha_fills WHERE token_id = {token:String}
           ORDER BY block_number, log_index, tx_hash SETTINGS ${settings}`,
          { token: String(token) },
        );
      const viaProjection = await read('optimize_use_projections = 1, force_optimize_projection = 1');
      const viaTable = await read('optimize_use_projections = 0');
      expect(viaProjection.length).toBeGreaterThan(0);
      expect(viaProjection).toEqual(viaTable);
    }
  });

  it('merges the hot tables about 20 parts at a time (merge_selector_base)', async () => {
    const hot = [
      'alpha_fills',
      'alpha_fill_hashes',
      'alpha_token_transfers',
      'alpha_collateral',
      'alpha_activity',
      'alpha_exchange_events',
    ];
    const rows = await deps.clickhouse.query<{ name: string; create: string }>(
      'test.tables',
      `SELECT name, create_table_query AS create FROM system.tables
       WHERE database = currentDatabase() AND name IN {hot:Array(String)} ORDER BY name`,
      { hot },
    );
    expect(rows.map((r) => r.name)).toEqual([...hot].sort());
    for (const r of rows) expect(r.create, r.name).toMatch(/merge_selector_base = 20\b/);
  });

  it('writes an insert-sized batch of fills as a compact part, and a part above 32 MiB as wide', async () => {
    const ch = deps.clickhouse;
    // ~700 bytes per row, about a real fill's size: 15,000 rows ≈ 10.5 MB, 60,000 rows ≈ 42 MB.
    const insert = (first: number, rows: number) =>
      ch.command(
        'test.insert',
        `INSERT INTO alpha_fills (chain_id, block_number, block_hash, block_time, tx_hash, log_index, exchange,
           exchange_version, order_hash, maker, taker, role, side, token_id, maker_amount, taker_amount, shares,
           usd, metadata, status)
         SELECT 137, 5000 + n, '0xb', toDateTime64('2026-05-01 00:00:00', 3, 'UTC'), concat('0xw', toString(n)), 0,
           '0xe1', 2, '0xo', concat('0xm', toString(n % 13)), '0xe1', 'maker', 'BUY', '1', 1, 1, 1, 1,
           repeat('f', 640), 'confirmed'
         FROM (SELECT ${first} + number AS n FROM numbers(${rows}))`,
      );
    await insert(0, 15_000);
    await insert(100_000, 60_000);
    const parts = await ch.query<{ rows: string; type: string }>(
      'test.part_types',
      `SELECT toString(rows) AS rows, part_type AS type FROM system.parts
       WHERE database = currentDatabase() AND table = 'alpha_fills' AND active AND min_block_number = max_block_number
         AND rows IN (15000, 60000) ORDER BY rows`,
    );
    expect(parts).toEqual([
      { rows: '15000', type: 'Compact' },
      { rows: '60000', type: 'Wide' },
    ]);
  });
});
