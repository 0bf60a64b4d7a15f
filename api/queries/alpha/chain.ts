/**
 * What the alpha chain event lists (alpha_fills, alpha_activity: docs/chain-ingestion.md) share: the
 * keyset (block_number, log_index), the block time range, base units, and the page's market slugs.
 */
import { expression } from '../../../core/clickhouse/table.ts';
import type { MarketSlugResolver } from '../../markets.ts';
import { timeRange } from '../filters.ts';
import type { KeyColumn } from '../list.ts';

/**
 * The columns every chain event resource starts with (keyset, transaction, time in Unix seconds, status):
 * the first five of a trades or activity selection.
 */
export const CHAIN_EVENT_HEAD = [
  'block_number',
  'log_index',
  'tx_hash',
  expression<number>('toUnixTimestamp(block_time)'),
  'status',
] as const;

/** Chain events are ordered, and cursors keyed, by (block_number, log_index). */
export const CHAIN_KEYSET: readonly KeyColumn[] = [
  { column: 'block_number', type: 'UInt64' },
  { column: 'log_index', type: 'UInt32' },
];

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
