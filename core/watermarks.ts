/**
 * The one progress store (`watermarks`, schemas/clickhouse/042_watermarks.sql): how far every source,
 * stream and product got, as marks of one shape.
 * - A head mark per (source, stream): the chain follower ('alpha-chain', 'follow': block number and hash),
 *   a REST venue's stream ('beta', 'markets': `time`, the stream's position), a product's run
 *   ('alpha-positions', 'run': block number and hash; `at` is the run's version).
 * - A range mark per backfill range ('alpha-chain', 'backfill', kind 'range', `from`/`to`): how far that
 *   range got. Ranges are structured, never a name to parse.
 * Invariants: `commit` runs the caller's `write` (every row the mark covers flushed and acknowledged)
 * before it records the mark, so a mark is never visible before its data; a failing `write` records
 * nothing. The newest `at` of a key wins (read with FINAL); `at` is the wall clock, strictly increasing
 * within a process, unless the mark brings its own (a product's run version). `contiguous` is the one
 * "contiguous progress" rule of a chain: the head mark 'follow', or the end of the finished ranges of
 * 'backfill' joined up from the lowest one (an unfinished range's mark extends the join and ends it),
 * whichever is higher.
 */
import type { ClickHouse } from './clickhouse/index.ts';

export interface Watermark {
  /** 'alpha-chain' | 'alpha-catalog' | 'beta' | 'gamma' | ... | a product name ('alpha-positions'). */
  source: string;
  /** chain: 'follow' | 'backfill'; REST: the stream ('markets', 'reconcile', 'trades', 'poll', 'catalog'); product: 'run'. */
  stream: string;
  /** 'range': a backfill range's own mark, with from/to (never a name to parse). */
  kind: 'head' | 'range';
  from?: number;
  to?: number;
  block?: number;
  hash?: string;
  /** Unix ms (a REST stream's position, e.g. the observation time or newest trade). */
  time?: number;
  /** Wall-clock Unix ms when committed (products: their run's version). */
  at: number;
}

export type Mark = Omit<Watermark, 'at'> & { at?: number };

export interface BlockSpan {
  from: number;
  to: number;
}

export interface Watermarks {
  /** A head mark (`range` omitted) or a range's mark, or null when none was committed. */
  read(source: string, stream: string, range?: BlockSpan): Promise<Watermark | null>;
  /** Every mark of a source (of one stream), ordered by stream, kind and range. */
  list(source: string, stream?: string): Promise<Watermark[]>;
  /** The one contiguous-progress rule (head mark 'follow' vs backfill ranges joined from the lowest). */
  contiguous(source: string): Promise<{ block: number; hash: string; at: number } | null>;
  /** Runs `write` (every row of the mark flushed and acknowledged), then records the mark. */
  commit(mark: Mark, write?: () => Promise<void>): Promise<Watermark>;
  /** Deletes a source's marks (of one stream; of one range of it): that progress starts over. */
  forget(source: string, stream?: string, range?: BlockSpan): Promise<void>;
  /** The newest `at` of a source's marks (a REST source's last good poll; a product's last run), or null. */
  newest(source: string, stream?: string): Promise<number | null>;
}

/** The chain streams `contiguous` joins. */
export const FOLLOW_STREAM = 'follow';
export const BACKFILL_STREAM = 'backfill';

const TABLE = 'watermarks';

// Marks of one key are ordered by `at`: keep the wall clock strictly increasing within the process.
let lastAt = 0;
function nextAt(): number {
  lastAt = Math.max(Date.now(), lastAt + 1);
  return lastAt;
}

/** `YYYY-MM-DD HH:MM:SS.mmm` (UTC) from Unix ms: how JSONEachRow reads a DateTime64(3). */
function chTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

interface Row {
  source: string;
  stream: string;
  kind: 'head' | 'range';
  range_from: string;
  range_to: string;
  block: string | null;
  hash: string;
  time: string | null;
  at: string;
}

const COLUMNS = `source, stream, kind, range_from, range_to, block, hash,
  toUnixTimestamp64Milli(time) AS time, toUnixTimestamp64Milli(at) AS at`;

function toWatermark(r: Row): Watermark {
  const w: Watermark = { source: r.source, stream: r.stream, kind: r.kind, at: Number(r.at) };
  if (r.kind === 'range') {
    w.from = Number(r.range_from);
    w.to = Number(r.range_to);
  }
  if (r.block !== null) {
    w.block = Number(r.block);
    w.hash = r.hash;
  } else if (r.hash !== '') w.hash = r.hash;
  if (r.time !== null) w.time = Number(r.time);
  return w;
}

function where(stream: string | undefined, range: BlockSpan | undefined): string {
  let sql = 'source = {source:String}';
  if (stream !== undefined) sql += ' AND stream = {stream:String}';
  if (range) sql += ` AND kind = 'range' AND range_from = {from:UInt64} AND range_to = {to:UInt64}`;
  return sql;
}

export function createWatermarks(ch: ClickHouse): Watermarks {
  async function select(source: string, stream?: string, range?: BlockSpan, head = false) {
    const rows = await ch.query<Row>(
      'watermarks.read',
      `SELECT ${COLUMNS} FROM ${TABLE} FINAL WHERE ${where(stream, range)}${head ? ` AND kind = 'head'` : ''}
       ORDER BY stream, kind, range_from, range_to`,
      { source, stream: stream ?? '', from: range?.from ?? 0, to: range?.to ?? 0 },
    );
    return rows.map(toWatermark);
  }

  const store: Watermarks = {
    async read(source, stream, range) {
      return (await select(source, stream, range, !range))[0] ?? null;
    },
    list: (source, stream) => select(source, stream),
    async contiguous(source) {
      const marks = await select(source);
      let best: { block: number; hash: string; at: number } | null = null;
      const follow = marks.find((m) => m.stream === FOLLOW_STREAM && m.kind === 'head');
      if (follow?.block !== undefined) best = { block: follow.block, hash: follow.hash ?? '', at: follow.at };
      const ranges = marks
        .filter(
          (m): m is Watermark & { from: number; to: number; block: number } =>
            m.stream === BACKFILL_STREAM &&
            m.kind === 'range' &&
            m.block !== undefined &&
            m.block >= (m.from ?? 0),
        )
        .sort((a, b) => a.from - b.from);
      let end: { block: number; hash: string; at: number } | null = null;
      let endAt = 0;
      for (const r of ranges) {
        if (end !== null && r.from > end.block + 1) break; // a gap: nothing above it joins up
        if (end === null || r.block > end.block) end = { block: r.block, hash: r.hash ?? '', at: 0 };
        endAt = Math.max(endAt, r.at);
        if (r.block < r.to) break; // an unfinished range: nothing above it joins up yet
      }
      if (end) end.at = endAt;
      if (end && (!best || end.block > best.block)) best = end;
      return best;
    },
    async commit(mark, write) {
      if (mark.kind === 'range' && (mark.from === undefined || mark.to === undefined)) {
        throw new Error(`A range mark of ${mark.source}/${mark.stream} needs its from and to`);
      }
      if (write) await write();
      const at = mark.at ?? nextAt();
      const row = {
        source: mark.source,
        stream: mark.stream,
        kind: mark.kind,
        range_from: mark.kind === 'range' ? mark.from : 0,
        range_to: mark.kind === 'range' ? mark.to : 0,
        block: mark.block ?? null,
        hash: mark.hash ?? '',
        time: mark.time === undefined ? null : chTime(mark.time),
        at: chTime(at),
      };
      // A raw insert runs on an insert lane of the embedded engine, not on the session that runs the
      // follower's confirmation mutations: the mark does not wait for one to finish.
      await ch.insertRaw(
        `watermarks.commit.${mark.source}`,
        TABLE,
        'JSONEachRow',
        Object.keys(row),
        Buffer.from(`${JSON.stringify(row)}\n`),
      );
      const { at: _at, ...rest } = mark;
      return { ...rest, at };
    },
    async forget(source, stream, range) {
      await ch.command('watermarks.forget', `DELETE FROM ${TABLE} WHERE ${where(stream, range)}`, {
        source,
        stream: stream ?? '',
        from: range?.from ?? 0,
        to: range?.to ?? 0,
      });
    },
    async newest(source, stream) {
      const rows = await ch.query<{ at: string; n: string }>(
        'watermarks.newest',
        `SELECT toUnixTimestamp64Milli(max(at)) AS at, count() AS n FROM ${TABLE} WHERE ${where(stream, undefined)}`,
        { source, stream: stream ?? '' },
      );
      return Number(rows[0]?.n ?? 0) > 0 ? Number(rows[0]!.at) : null;
    },
  };
  return store;
}
