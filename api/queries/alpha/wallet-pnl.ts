/**
 * `GET /v2/alpha/wallet/pnl/{wallet}` (interface-shapes §14; docs/api.md): a wallet's P&L summary from its
 * positions (alpha_positions FINAL, priced by alpha_token_prices FINAL) and its cumulative realized P&L per
 * UTC period from the position changes (alpha_position_changes FINAL, summed per day in SQL, rolled up to
 * the period here). `condition_id` keeps both outcome tokens of one market.
 *
 * The summary is the current state; the series counts the changes up to end_time, those before
 * start_time included (pnl_to_date is the realized P&L to that date, not since start_time).
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { columnOf, expression, fields } from '../../../core/clickhouse/table.ts';
import { alphaNowSeconds } from '../../../core/now.ts';
import { unrealizedBase } from '../../../core/unrealized.ts';
import type { PnlQuery, PnlResponse } from '../../../schemas/api/alpha-pnl.ts';
import { ALPHA_POSITIONS, ALPHA_TOKEN_PRICES } from '../../../schemas/tables/alpha-positions.ts';
import { ApiError } from '../../errors.ts';
import { checkTimeRange, parseHash } from '../filters.ts';
import { cumulative, total } from './market-data.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A wallet path parameter → lowercase; anything but 0x + 40 hex is a 400 naming it. */
export function walletOf(raw: string, param = 'wallet'): string {
  const v = raw.trim();
  if (!ADDRESS.test(v)) {
    throw new ApiError(
      400,
      `Invalid ${param}: "${v.slice(0, 100)}" (expected 0x followed by 40 hex characters)`,
    );
  }
  return v.toLowerCase();
}

/** A position of the wallet and its token's current price (null: none known). */
const POSITION = fields({
  token_id: columnOf(ALPHA_POSITIONS, 'token_id', 'p.token_id'),
  shares: columnOf(ALPHA_POSITIONS, 'shares', 'p.shares'),
  avg_price: columnOf(ALPHA_POSITIONS, 'avg_price', 'p.avg_price'),
  realized_pnl: columnOf(ALPHA_POSITIONS, 'realized_pnl', 'p.realized_pnl'),
  net_fees: columnOf(ALPHA_POSITIONS, 'net_fees', 'p.net_fees'),
  price: columnOf(ALPHA_TOKEN_PRICES, 'price', 't.price'),
});

const SUMMARY_SQL = (byCondition: boolean) => `
  SELECT ${POSITION.sql}
  FROM (
    SELECT token_id, shares, avg_price, realized_pnl, net_fees FROM alpha_positions FINAL
    WHERE wallet = {wallet:String}${byCondition ? ' AND condition_id = {condition_id:String}' : ''}
  ) AS p
  LEFT JOIN (
    SELECT token_id, price FROM alpha_token_prices FINAL
    WHERE token_id IN (SELECT token_id FROM alpha_positions FINAL
                       WHERE wallet = {wallet:String} AND shares > 0)
  ) AS t ON t.token_id = p.token_id`;

/** A UTC day (Unix s): its realized P&L (base units) and its first and last change (Unix ms). */
const DAY = fields({
  day: expression<number>('toUnixTimestamp(toStartOfDay(block_time)) AS day'),
  realized: expression<string>('sum(delta_realized_pnl)'),
  first_ms: expression<string>('toUnixTimestamp64Milli(min(block_time))'),
  last_ms: expression<string>('toUnixTimestamp64Milli(max(block_time))'),
});

/**
 * Realized P&L per UTC day (and the day's first and last change, Unix ms) up to end (ms, inclusive). FINAL
 * within each month's partition: a change row's duplicate has the same block, so the same partition.
 */
const DAYS_SQL = (byCondition: boolean, bounded: boolean) => `
  SELECT ${DAY.sql}
  FROM alpha_position_changes FINAL
  WHERE wallet = {wallet:String}${byCondition ? ' AND condition_id = {condition_id:String}' : ''}${
    bounded ? " AND block_time <= fromUnixTimestamp64Milli({end_ms:Int64}, 'UTC')" : ''
  }
  GROUP BY day ORDER BY day
  SETTINGS do_not_merge_across_partitions_select_final = 1`;

export async function alphaWalletPnl(ch: ClickHouse, rawWallet: string, q: PnlQuery): Promise<PnlResponse> {
  const wallet = walletOf(rawWallet);
  const conditionId = parseHash(q.condition_id, 'condition_id');
  checkTimeRange(q.start_time, q.end_time);
  const byCondition = conditionId !== undefined;
  const params: Record<string, unknown> = { wallet };
  if (byCondition) params.condition_id = conditionId;
  // end_time is whole seconds: every change within its second counts.
  if (q.end_time !== undefined) params.end_ms = (q.end_time + 1) * 1000 - 1;
  const [positions, days] = await Promise.all([
    ch
      .read('api.alpha.wallet_pnl.positions', SUMMARY_SQL(byCondition), params)
      .then((raw) => raw.map(POSITION.zip)),
    ch
      .read('api.alpha.wallet_pnl.days', DAYS_SQL(byCondition, q.end_time !== undefined), params)
      .then((raw) => raw.map(DAY.zip)),
  ]);

  let realized = 0;
  let fees = 0;
  let unrealized = 0;
  for (const p of positions) {
    realized += Number(p.realized_pnl);
    fees += Number(p.net_fees);
    if (BigInt(p.shares) > 0n) {
      unrealized += unrealizedBase(p.shares, p.avg_price, p.price === null ? null : Number(p.price));
    }
  }

  const lastChange = days.length > 0 ? Math.floor(Number(days[days.length - 1]!.last_ms) / 1000) : 0;
  const end = q.end_time ?? Math.max(await alphaNowSeconds(ch), lastChange);
  const firstChange = days.length > 0 ? Math.floor(Number(days[0]!.first_ms) / 1000) : null;
  const start = q.start_time ?? firstChange ?? end;
  const rows = days.map((d) => [Number(d.day), Number(d.realized)] as const);
  const points =
    q.granularity === 'all'
      ? total(rows, end)
      : cumulative(rows, { period: q.granularity, start: q.start_time, end });

  // Base-unit integers summed, divided once: total_pnl is exact to the base unit.
  return {
    granularity: q.granularity,
    start_time: start,
    end_time: end,
    wallet_address: wallet,
    realized_pnl: realized / 1e6,
    unrealized_pnl: unrealized / 1e6,
    fees_paid: fees / 1e6,
    fees_refunded: 0,
    total_pnl: (realized + unrealized - fees) / 1e6,
    pnl_over_time: points.map(({ timestamp, sums }) => ({ timestamp, pnl_to_date: sums[0]! / 1e6 })),
  };
}
