/**
 * Venue gamma's records → rows of gamma_markets and gamma_events (schemas/tables/gamma.ts):
 *
 * - prices: the upstream's percents / 100 (0–1), one per outcome (null where none is served);
 * - amounts: collateral base units / 10^decimals (USD; the collateral is USDC, 6 decimals by default);
 * - `open_interest_usd`: a number for pool (`amm`) markets, null for order-book (`clob`) markets;
 * - `status`: `RESOLVED` → resolved; expired (or `LOCKED`) → closed; otherwise open;
 * - a market of a group: `event_key`/`event_title` are the group's slug and title, `group_label` the
 *   market's own title inside the group; a single market has '' and null;
 * - `payout_numerators`: as served when the record has them, else derived from the winning outcome of a
 *   resolved market (1 for the winner, 0 for the other), else [];
 * - `market_address` for amm markets (the pool), `exchange_address` for clob markets (the venue's
 *   exchange); `resolution_block` is not served: null.
 */
import type { RowOf } from '../../../core/clickhouse/table.ts';
import { searchWords } from '../../../core/search-words.ts';
import type { GAMMA_EVENTS, GAMMA_MARKETS } from '../../../schemas/tables/gamma.ts';
import type { GammaEntry } from './client.ts';
import type { GroupPayload, MarketPayload } from './payloads.ts';

export type GammaMarketRow = Omit<RowOf<typeof GAMMA_MARKETS>, 'content_hash' | 'observed_at'>;
export type GammaEventRow = Omit<RowOf<typeof GAMMA_EVENTS>, 'content_hash' | 'observed_at'>;
export type Status = 'open' | 'closed' | 'resolved';

const DEFAULT_DECIMALS = 6;

/** A served time (ISO text) as Unix ms; null when absent or unreadable. */
export function timeOf(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : null;
}

/** A base-unit amount as USD (0 when absent). */
export function usd(amount: string | number | null | undefined, decimals: number): number {
  if (amount === null || amount === undefined || amount === '') return 0;
  return Number(amount) / 10 ** decimals;
}

/** A percent as a 0–1 price, without the float noise of the division (12 significant digits). */
export function priceOf(percent: number | null | undefined): number | null {
  if (percent === null || percent === undefined) return null;
  return Number((percent / 100).toPrecision(12));
}

export function statusOf(r: { status: string; expired?: boolean | null }): Status {
  const s = r.status.toUpperCase();
  if (s === 'RESOLVED') return 'resolved';
  if (r.expired === true || s === 'LOCKED' || s === 'CLOSED') return 'closed';
  return 'open';
}

const labels = (xs: readonly string[] | null | undefined): string[] => (xs ? [...xs] : []);

function decimalsOf(r: MarketPayload | GroupPayload): number {
  return r.collateralToken?.decimals ?? DEFAULT_DECIMALS;
}

function tokenIdsOf(m: MarketPayload, n: number): string[] {
  const served = m.positionIds ?? (m.tokens ? [m.tokens.yes ?? '', m.tokens.no ?? ''] : []);
  return Array.from({ length: n }, (_, i) => served[i] ?? '');
}

function payoutOf(m: MarketPayload, n: number, status: Status, winner: number | null): number[] {
  if (m.payout_numerators) return m.payout_numerators.map(Number);
  if (status === 'resolved' && winner !== null && winner < n) {
    return Array.from({ length: n }, (_, i) => (i === winner ? 1 : 0));
  }
  return [];
}

/** A market's row; `group` is the group it was served in (null for a single market). */
export function marketRow(m: MarketPayload, group: GroupPayload | null): GammaMarketRow {
  const outcomes = m.outcomeTokens && m.outcomeTokens.length > 0 ? [...m.outcomeTokens] : ['Yes', 'No'];
  const n = outcomes.length;
  const status = statusOf(m);
  const decimals = decimalsOf(m);
  const categories = labels(m.categories);
  const winner = m.winningOutcomeIndex ?? m.winning_index ?? null;
  const expiration = m.expirationTimestamp ?? null;
  return {
    slug: m.slug,
    title: m.title,
    words: searchWords(m.title),
    status,
    outcomes,
    token_ids: tokenIdsOf(m, n),
    prices: Array.from({ length: n }, (_, i) => priceOf(m.prices[i])),
    volume_usd: usd(m.volume, decimals),
    end_time: expiration,
    created_time: timeOf(m.createdAt),
    event_key: group?.slug ?? '',
    event_title: group?.title ?? '',
    group_label: group ? m.title : null,
    category: categories[0] ?? '',
    tags: labels(m.tags),
    condition_id: m.conditionId,
    market_id: m.id ?? null,
    description: m.description ?? '',
    trade_type: m.tradeType,
    open_interest_usd: m.tradeType === 'amm' ? usd(m.openInterest, decimals) : null,
    liquidity_usd: usd(m.liquidity, decimals),
    image_url: m.image_url ?? '',
    categories,
    collateral_address: m.collateralToken?.address ?? '',
    collateral_symbol: m.collateralToken?.symbol ?? '',
    collateral_decimals: decimals,
    market_address: m.tradeType === 'amm' ? (m.address ?? null) : null,
    exchange_address: m.tradeType === 'clob' ? (m.venue?.exchange ?? group?.venue?.exchange ?? null) : null,
    expired: m.expired === true,
    winning_outcome: status === 'resolved' ? winner : null,
    payout_numerators: payoutOf(m, n, status, winner),
    resolution_block: null,
    resolution_tx: m.resolutionTxHash ?? null,
    expiration_time: expiration,
    updated_time: timeOf(m.updatedAt),
  };
}

export function eventRow(g: GroupPayload, marketSlugs: readonly string[]): GammaEventRow {
  const categories = labels(g.categories);
  return {
    slug: g.slug,
    id: g.id ?? null,
    title: g.title,
    words: searchWords(g.title),
    description: g.description ?? '',
    status: statusOf(g),
    trade_type: g.tradeType ?? 'clob',
    market_slugs: [...marketSlugs],
    volume_usd: usd(g.volume, decimalsOf(g)),
    liquidity_usd: usd(g.liquidity, decimalsOf(g)),
    category: categories[0] ?? '',
    categories,
    tags: labels(g.tags),
    expired: g.expired === true,
    expiration_time: g.expirationTimestamp ?? null,
    created_time: timeOf(g.createdAt),
  };
}

/** The rows of one entry: its markets, and its group's event row. */
export function entryRows(e: GammaEntry): { markets: GammaMarketRow[]; event: GammaEventRow | null } {
  if (e.kind === 'market') return { markets: [marketRow(e.market, null)], event: null };
  return {
    markets: e.markets.map((m) => marketRow(m, e.group)),
    event: eventRow(e.group, e.marketSlugs),
  };
}
