/**
 * `npm run bench -- ticks [--markets N] [--deltas N] [--ticks N] [--tickers N] [--history-days N]`: beta's
 * book feed and the tick datasets (docs/orderbooks.md "beta's book feed", docs/ticks.md), side by side in
 * one run:
 * - the feed (bench/ticks/feed.ts): deltas/s from a local socket server in a child process sending
 *   `--deltas` (default 500,000) over `--markets` (1,000) as fast as it can, through `beta.feed`'s reader
 *   into beta_book_ticks (goal ≥ 50,000 deltas/s);
 * - compaction (bench/ticks/compaction.ts): `--ticks` (2,000,000) feed rows over `--tickers` (500)
 *   generated, one final day of dataset `beta` compacted into zstd Parquet (goal ≥ 1M rows/s), and its
 *   Parquet bytes per row; `--history-days` days of feed before it (default 0).
 * Last line `SUMMARY deltas_per_s=… rows_per_s=…`.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openBenchWorld } from './support/world.ts';
import { measureCompaction } from './ticks/compaction.ts';
import { measureFeed } from './ticks/feed.ts';

const n = (v: number) => Math.round(v).toLocaleString('en-US');

export async function run(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      markets: { type: 'string', default: '1000' },
      deltas: { type: 'string', default: '500000' },
      ticks: { type: 'string', default: '2000000' },
      tickers: { type: 'string', default: '500' },
      'history-days': { type: 'string', default: '0' },
    },
  });
  const o = {
    markets: Number(values.markets),
    deltas: Number(values.deltas),
    ticks: Number(values.ticks),
    tickers: Number(values.tickers),
    historyDays: Number(values['history-days']),
  };
  for (const [name, v] of Object.entries(o)) {
    if (!Number.isInteger(v) || v < (name === 'historyDays' ? 0 : 1)) {
      throw new Error(`--${name} must be a ${name === 'historyDays' ? 'non-negative' : 'positive'} integer`);
    }
  }
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const world = await openBenchWorld('ticks');
  try {
    say(`feed: ${n(o.deltas)} deltas over ${n(o.markets)} markets from a local socket server`);
    const feed = await measureFeed({ markets: o.markets, deltas: o.deltas, world });
    say(
      `  ${n(feed.deltas_per_s)} deltas/s (${n(feed.rows)} rows in ${feed.seconds.toFixed(2)} s, ` +
        `${n(feed.rows_per_insert)} rows per insert)`,
    );
    say(`compaction: ${n(o.ticks)} feed rows over ${n(o.tickers)} tickers, ${o.historyDays} days of history`);
    const c = await measureCompaction({
      clickhouse: world.clickhouse,
      log: world.log,
      dir: path.join(world.dir, 'ticks'),
      ticks: o.ticks,
      tickers: o.tickers,
      historyDays: o.historyDays,
    });
    say(
      `  ${n(c.rows)} rows in ${c.parts} parts, ${n(c.parquet_bytes)} Parquet bytes, ${c.seconds.toFixed(2)} s: ` +
        `${n(c.rows_per_s)} rows/s, ${c.parquet_bytes_per_row.toFixed(2)} bytes/row` +
        `${c.carried ? " (opened on the day before's closing books)" : ''}`,
    );
    say(`SUMMARY deltas_per_s=${Math.round(feed.deltas_per_s)} rows_per_s=${Math.round(c.rows_per_s)}`);
  } finally {
    await world.close();
  }
}
