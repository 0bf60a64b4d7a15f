/**
 * Rows as objects from any mapping. `collectingSink` hands every row the mapper makes to a sink and,
 * given a RowSet, also pushes it there as an object: the live follower publishes the rows it writes,
 * `mapPage` returns a page's rows. Rows pushed as objects are passed on as they are; rows the direct
 * lane writes column by column (direct-lane.ts) are read back from the bytes just written
 * (`rowBinaryDecoder`, core/clickhouse/table.ts), in the shapes of the row types, a fill with the price
 * the engine computes for its table. A sink without `direct` (a RowSet) gets the lane's rows the same
 * way, so every sink takes every row.
 *
 * Only sinks that want objects pay for the read-back: a sink that has `direct`, with no RowSet to fill,
 * is returned as it is.
 */
import { ByteReader, ByteWriter, type U64 } from '../../../../core/clickhouse/row-binary.ts';
import { rowBinaryDecoder } from '../../../../core/clickhouse/table.ts';
import { ALPHA_CHAIN_TABLES, ALPHA_FILLS } from '../../../../schemas/tables/alpha-chain.ts';
import { ratio } from '../../../chain/hex.ts';
import { type DirectSink, EVENT_TABLES, type EventTable, type RowSet, type RowSink } from './rows.ts';

type Decode = (r: ByteReader) => object;

/** Decoders by table, made when first needed (the lane writes four tables). */
const DECODERS = new Map<EventTable, Decode>();

function decoderOf(t: EventTable): Decode {
  let d = DECODERS.get(t);
  if (d === undefined) {
    d =
      t === 'alpha_fills'
        ? rowBinaryDecoder(ALPHA_FILLS, { price: (row) => ratio(row.usd as U64, row.shares as U64) })
        : rowBinaryDecoder(ALPHA_CHAIN_TABLES[t]);
    DECODERS.set(t, d);
  }
  return d;
}

/** The row of table `t` whose bytes are `bytes` (exactly one row). */
function rowOf(t: EventTable, bytes: Buffer): object {
  const r = new ByteReader(bytes);
  const row = decoderOf(t)(r);
  if (r.pos !== bytes.length)
    throw new Error(`collectingSink: ${t} row of ${bytes.length} bytes read as ${r.pos} bytes`);
  return row;
}

/** Bytes the scratch writer of a sink without `direct` holds before it starts a new buffer. */
const SCRATCH_BYTES = 1 << 16;

type Push = { push(row: object): unknown };

/**
 * A sink that hands every row to `sink` and, when `into` is given, pushes it into `into` too (rows of
 * a table `sink.direct` drops, `writer` undefined, are not collected: nothing of them is written).
 * Rows written through the returned sink's `direct` go to `sink.direct` when it has one, else they are
 * read back and pushed to `sink` as objects. Read `sink`'s own counters (the writer's `accepted`).
 */
export function collectingSink(sink: RowSink, into?: RowSet): RowSink {
  const inner = sink.direct;
  if (inner !== undefined && into === undefined) return sink;
  const out = {} as Record<EventTable, Push>;
  for (const t of EVENT_TABLES) {
    const to = sink[t] as Push;
    const also = into?.[t] as object[] | undefined;
    out[t] = also
      ? {
          push: (row) => {
            to.push(row);
            also.push(row);
          },
        }
      : to;
  }
  let direct: DirectSink;
  if (inner !== undefined) {
    // Where the row being written starts in its table's writer (the writer may have been handed a
    // batch's bytes and started over after the last row: read again at every `writer` call).
    const writers = new Map<EventTable, ByteWriter>();
    const starts = new Map<EventTable, number>();
    direct = {
      writer(t) {
        const w = inner.writer(t);
        if (w !== undefined) {
          writers.set(t, w);
          starts.set(t, w.pos);
        }
        return w;
      },
      written(t) {
        const w = writers.get(t)!;
        (into![t] as object[]).push(rowOf(t, w.bytesFrom(starts.get(t)!)));
        inner.written(t);
        // A TransferBatch writes its rows after one `writer` call: the next starts here.
        starts.set(t, w.pos);
      },
    };
  } else {
    const scratch = new ByteWriter(SCRATCH_BYTES);
    let start = 0;
    direct = {
      writer() {
        start = scratch.pos;
        return scratch;
      },
      written(t) {
        out[t].push(rowOf(t, scratch.bytesFrom(start)));
        // Rows hold copies of what they read: the bytes can go.
        if (scratch.pos >= SCRATCH_BYTES) scratch.take();
        start = scratch.pos;
      },
    };
  }
  return Object.assign(out, { direct }) as unknown as RowSink;
}
