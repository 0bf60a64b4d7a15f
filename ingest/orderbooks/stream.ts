/**
 * The `orderbooks` stream of a REST venue (beta, gamma, delta; docs/orderbooks.md): every
 * ORDERBOOK_POLL_S (schedule `<code>:orderbooks-poll`, mode `poll`, job `<code>.orderbooks` on queue
 * `venues`) under the lease `<code>:orderbooks:lease` (a poll finding it held is skipped), the venue's
 * read yields batches of YES books of its open markets, and each batch is recorded by the one writer
 * (`recordSnapshots`: source `rest`, the run's observation time as `sequence`, ORDERBOOK_KEEPALIVE_S),
 * which bumps `books:<code>`; the runner's `venue:<code>` bump is not made (nothing of the venue's
 * tables changes). A book that fails its schema is quarantined by the read (`ctx.account`) and the batch
 * goes on. No watermark: a poll records the books as they are now, nothing is resumed.
 */
import { venuesConfig } from '../rest/config.ts';
import {
  defineStream,
  type StreamContext,
  type StreamDefinition,
  type StreamSummary,
} from '../rest/runner.ts';
import { type BookSnapshot, recordSnapshots } from './store.ts';

export interface OrderbookSummary extends StreamSummary {
  /** Open markets whose book was asked for. */
  markets: number;
  /** Books read (valid). */
  read: number;
  /** Snapshots written, and books equal to the market's last one within the keep-alive (not written). */
  written: number;
  unchanged: number;
}

/** One batch: the books of some open markets. */
export interface BookBatch {
  books: BookSnapshot[];
}

export type OrderbookMode = 'poll';
export type OrderbookContext = StreamContext<OrderbookMode, unknown, OrderbookSummary>;

/** ORDERBOOK_KEEPALIVE_S of a run's configuration in ms (its default without one). */
export function keepaliveMs(config: StreamContext['config']): number {
  const spec = venuesConfig.variables.orderbookKeepaliveS;
  return (config ? venuesConfig.of(config).orderbookKeepaliveS : spec.parse(spec.default)) * 1000;
}

/**
 * Records `books` of `venue` (source `rest`) at the run's observation time; returns the rows written.
 * Counts into `summary.written`/`unchanged` when given.
 */
export async function recordBooks(
  ctx: StreamContext,
  venue: string,
  books: readonly BookSnapshot[],
  summary?: { written: number; unchanged: number },
): Promise<number> {
  if (books.length === 0) return 0;
  const r = await recordSnapshots(ctx.clickhouse, books, {
    venue,
    source: 'rest',
    observedAt: ctx.observedAt(),
    keepaliveMs: keepaliveMs(ctx.config),
    versions: ctx.versions,
  });
  if (summary) {
    summary.written += r.written;
    summary.unchanged += r.unchanged;
  }
  return r.written;
}

/** The `orderbooks` stream of venue `code`, reading with `read`. */
export function orderbookStream<C>(
  code: string,
  read: (client: C, ctx: OrderbookContext) => AsyncIterable<BookBatch>,
): StreamDefinition<C, 'orderbooks', OrderbookMode, unknown, OrderbookSummary, BookBatch> {
  return defineStream<C, 'orderbooks', OrderbookMode, unknown, OrderbookSummary, BookBatch>({
    name: 'orderbooks',
    attempts: 3,
    modes: ['poll'],
    leases: () => [`${code}:orderbooks:lease`],
    every: [
      {
        id: `${code}:orderbooks-poll`,
        mode: 'poll',
        everyMs: (c) => venuesConfig.of(c).orderbookPollS * 1000,
      },
    ],
    summary: (): OrderbookSummary => ({
      markets: 0,
      read: 0,
      written: 0,
      unchanged: 0,
      quarantined: 0,
      requests: 0,
      rereads: 0,
      ms: 0,
    }),
    read,
    rows: () => ({}),
    tables: [],
    write: (batch, ctx) => recordBooks(ctx, code, batch.books, ctx.summary),
    source: null,
    log: { message: 'Recorded order books', level: 'debug' },
  });
}
