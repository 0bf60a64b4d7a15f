/**
 * Venue gamma's ground truth, from the world (catalog + state), for comparing the ingested tables:
 * which entries the upstream lists as active now (a single market, or a group of markets, active while
 * any of its markets trades), and for a set of entries the market and event rows the ingestor must hold:
 * ids, titles, status, prices (0–1, the served percents' 2 places), volume, open interest (null for
 * order-book markets), liquidity, outcomes and token ids, the group fields. Computed from the world, not
 * from the replica's answers.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Catalog, CatalogEvent, CatalogMarket } from '../../sim/world/catalog.ts';
import type { WorldState } from '../../sim/world/state.ts';

export interface TruthMarket {
  slug: string;
  market_id: number;
  condition_id: string;
  title: string;
  status: 'open' | 'closed' | 'resolved';
  trade_type: 'amm' | 'clob';
  outcomes: string[];
  token_ids: string[];
  prices: number[];
  volume_usd: number;
  open_interest_usd: number | null;
  liquidity_usd: number;
  event_key: string;
  event_title: string;
  group_label: string | null;
  category: string;
  tags: string[];
  end_time: number;
  created_time: number;
  winning_outcome: number | null;
  expired: boolean;
}

export interface TruthEvent {
  slug: string;
  id: number;
  title: string;
  status: 'open' | 'closed' | 'resolved';
  market_slugs: string[];
  volume_usd: number;
}

export interface GammaTruth {
  markets: Map<string, TruthMarket>;
  events: Map<string, TruthEvent>;
}

const usd6 = (x: number) => Math.round(x * 1e6) / 1e6;
/** A 0–1 price as served: a percent with 2 places, over 100. */
const served = (p: number) => Math.round(p * 10_000) / 10_000;

export const isGroup = (e: CatalogEvent) => e.marketKeys.length > 1;

/** The events (entries) the upstream lists as active now. */
export function activeEvents(catalog: Catalog, state: WorldState): CatalogEvent[] {
  return catalog.venues.gamma.events.filter((e) =>
    e.marketKeys.some((k) => state.status('gamma', k).status === 'open'),
  );
}

/** The truth of the given events (default: those active now). */
export function gammaTruth(
  catalog: Catalog,
  state: WorldState,
  events: readonly CatalogEvent[] = activeEvents(catalog, state),
): GammaTruth {
  const v = catalog.venues.gamma;
  const category = (slug: string) => v.categories.find((c) => c.slug === slug)?.label ?? slug;
  const tagLabel = (slug: string) => v.tags.find((t) => t.slug === slug)?.label ?? slug;
  const liquidity = (key: string) => {
    const b = state.book('gamma', key);
    return (
      b.bids.reduce((s, l) => s + l.price * l.size, 0) + b.asks.reduce((s, l) => s + l.price * l.size, 0)
    );
  };
  const markets = new Map<string, TruthMarket>();
  const out = new Map<string, TruthEvent>();
  for (const e of events) {
    const group = isGroup(e);
    const ms: CatalogMarket[] = e.marketKeys.map((k) => state.market('gamma', k));
    for (const m of ms) {
      const st = state.status('gamma', m.key);
      const yes =
        st.status === 'resolved' ? (st.winningIndex === 0 ? 1 : 0) : state.price('gamma', m.key).last;
      const title = group ? (m.groupItemTitle ?? m.question) : m.question;
      markets.set(m.slug, {
        slug: m.slug,
        market_id: Number(m.id),
        condition_id: m.chain!.conditionId,
        title,
        status: st.status,
        trade_type: m.kind,
        outcomes: [...m.outcomes],
        token_ids: m.kind === 'clob' ? [...m.tokenIds] : ['', ''],
        prices: [served(yes), served(1 - yes)],
        volume_usd: usd6(state.volume('gamma', m.key).notional),
        open_interest_usd: m.kind === 'amm' ? usd6(state.openInterest('gamma', m.key)) : null,
        liquidity_usd: usd6(liquidity(m.key)),
        event_key: group ? e.ticker : '',
        event_title: group ? e.title : '',
        group_label: group ? title : null,
        category: category(m.category),
        tags: m.tags.map(tagLabel),
        end_time: m.endTime,
        created_time: m.createdAt,
        winning_outcome: st.status === 'resolved' ? st.winningIndex : null,
        expired: st.status !== 'open',
      });
    }
    if (group) {
      const sts = ms.map((m) => state.status('gamma', m.key).status);
      out.set(e.ticker, {
        slug: e.ticker,
        id: Number(e.id),
        title: e.title,
        status: sts.every((s) => s === 'resolved')
          ? 'resolved'
          : sts.some((s) => s === 'open')
            ? 'open'
            : 'closed',
        market_slugs: ms.map((m) => m.slug),
        volume_usd: usd6(ms.reduce((s, m) => s + state.volume('gamma', m.key).notional, 0)),
      });
    }
  }
  return { markets, events: out };
}

const near = (a: number | null, b: number | null) =>
  a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
/** Prices: within half a served unit (the percents have 2 places), so rounding ties do not matter. */
const nearPrice = (a: number | null, b: number) => a !== null && Math.abs(a - b) <= 0.000_050_1;
/** A read DateTime64 (ISO text) as Unix ms. */
const ms = (t: string | null) => (t === null ? null : Date.parse(t));

/**
 * The differences between the stored tables (read with FINAL) and the truth, one line each; [] when
 * they agree (every truth market and event stored, nothing else).
 */
export async function gammaDifferences(ch: ClickHouse, truth: GammaTruth): Promise<string[]> {
  const rows = await ch.query<Record<string, unknown>>(
    'test.gamma.markets',
    `SELECT slug, toUInt64(assumeNotNull(market_id)) AS market_id, condition_id, title, status, trade_type,
            outcomes, token_ids, prices, volume_usd, open_interest_usd, liquidity_usd, event_key, event_title,
            group_label, category, tags, end_time, created_time, winning_outcome, expired
       FROM gamma_markets FINAL ORDER BY slug`,
  );
  const diffs: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const slug = r.slug as string;
    seen.add(slug);
    const t = truth.markets.get(slug);
    if (!t) {
      diffs.push(`market ${slug}: stored, not in the truth`);
      continue;
    }
    const got: Record<string, unknown> = {
      ...r,
      market_id: Number(r.market_id),
      end_time: ms(r.end_time as string | null),
      created_time: ms(r.created_time as string | null),
      winning_outcome: r.winning_outcome === null ? null : Number(r.winning_outcome),
      expired: Boolean(r.expired),
    };
    for (const [k, want] of Object.entries(t)) {
      const have = got[k];
      const same =
        k === 'prices'
          ? (want as number[]).every((p, i) => nearPrice((have as (number | null)[])[i] ?? null, p)) &&
            (have as unknown[]).length === (want as unknown[]).length
          : typeof want === 'number' || (want === null && k === 'open_interest_usd')
            ? near(have as number | null, want as number | null)
            : JSON.stringify(have) === JSON.stringify(want);
      if (!same)
        diffs.push(`market ${slug}.${k}: stored ${JSON.stringify(have)}, truth ${JSON.stringify(want)}`);
    }
  }
  for (const slug of truth.markets.keys()) if (!seen.has(slug)) diffs.push(`market ${slug}: not stored`);

  const events = await ch.query<{
    slug: string;
    id: string;
    title: string;
    status: string;
    market_slugs: string[];
    volume_usd: number;
  }>(
    'test.gamma.events',
    'SELECT slug, toUInt64(assumeNotNull(id)) AS id, title, status, market_slugs, volume_usd FROM gamma_events FINAL',
  );
  const seenEvents = new Set<string>();
  for (const e of events) {
    seenEvents.add(e.slug);
    const t = truth.events.get(e.slug);
    if (!t) {
      diffs.push(`event ${e.slug}: stored, not in the truth`);
      continue;
    }
    const have = { ...e, id: Number(e.id) };
    for (const [k, want] of Object.entries(t)) {
      const v = (have as Record<string, unknown>)[k];
      const same =
        typeof want === 'number' ? near(v as number, want) : JSON.stringify(v) === JSON.stringify(want);
      if (!same)
        diffs.push(`event ${e.slug}.${k}: stored ${JSON.stringify(v)}, truth ${JSON.stringify(want)}`);
    }
  }
  for (const slug of truth.events.keys()) if (!seenEvents.has(slug)) diffs.push(`event ${slug}: not stored`);
  return diffs;
}

/** Rows stored per key without FINAL above 1: a record written twice. */
export async function doubled(ch: ClickHouse): Promise<string[]> {
  const rows = await ch.query<{ t: string; slug: string; n: string }>(
    'test.gamma.doubled',
    `SELECT 'market' AS t, slug, count() AS n FROM gamma_markets GROUP BY slug HAVING n > 1
     UNION ALL SELECT 'event' AS t, slug, count() AS n FROM gamma_events GROUP BY slug HAVING n > 1`,
  );
  return rows.map((r) => `${r.t} ${r.slug} ×${r.n}`);
}
