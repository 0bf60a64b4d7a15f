/**
 * What the alpha chain event lists (alpha_fills, alpha_activity: docs/chain-ingestion.md) share: the
 * keyset (block_number, log_index), the block time range, base units, and the page's market slugs.
 */
import { expression } from '../../../core/clickhouse/table.ts';
import { ApiError } from '../../errors.ts';
import type { MarketSlugResolver } from '../../markets.ts';
import type { KeyColumn } from '../../read/keyset.ts';
import { type Filter, timeRange } from '../filters.ts';

/**
 * The columns every chain event resource starts with (keyset, transaction, time in Unix seconds, status):
 * the first five of a trades or activity selection (the time as `timestamp`).
 */
export const CHAIN_EVENT_HEAD = [
  'block_number',
  'log_index',
  'tx_hash',
  expression<number>('toUnixTimestamp(block_time)').as('timestamp'),
  'status',
] as const;

/** Chain events are ordered, and cursors keyed, by (block_number, log_index). */
export const CHAIN_KEYSET: readonly KeyColumn[] = [
  { column: 'block_number', type: 'UInt64' },
  { column: 'log_index', type: 'UInt32' },
];

/**
 * `after=<block_number>:<log_index>`: rows strictly after that chain position, oldest first (the stream's
 * catch-up, docs/streaming.md). Anything else is a 400.
 */
export const afterPosition: Filter<[string, number]> = {
  name: 'after',
  order: 'asc',
  parse(q) {
    const raw = q.after as string | undefined;
    if (raw === undefined) return undefined;
    const m = /^(\d{1,20}):(\d{1,10})$/.exec(raw);
    if (!m || BigInt(m[1]!) > 18446744073709551615n || Number(m[2]) > 0xffffffff) {
      throw new ApiError(
        400,
        `Invalid after: expected <block_number>:<log_index> (decimal integers), got "${raw.slice(0, 60)}"`,
      );
    }
    return [BigInt(m[1]!).toString(), Number(m[2])];
  },
  where: ([block, log]) => ({
    sql: 'block_number > {after_block:UInt64} OR (block_number = {after_block:UInt64} AND log_index > {after_log:UInt32})',
    params: { after_block: block, after_log: log },
  }),
};

/** `start_time` / `end_time` on the block time. */
export const blockTimeRange = () => timeRange('block_time');

/** Base units (6 decimals) as ClickHouse returns 64-bit integers (strings) → a JSON number. */
export function units(v: string | number): number {
  return Number(v) / 1e6;
}

/** Market slugs of a page's conditions: one resolver call per page, none when the page has no condition. */
export async function pageSlugs(
  markets: MarketSlugResolver,
  conditionIds: Iterable<string | null>,
): Promise<Map<string, string>> {
  const ids = [...new Set([...conditionIds].filter((c): c is string => !!c))];
  return ids.length > 0 ? markets.slugs(ids) : new Map<string, string>();
}
