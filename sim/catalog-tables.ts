/**
 * A synthetic alpha catalog written straight into the tables the catalog build reads, for the catalog
 * endpoints' tests and the `catalog` benchmark (20k events, 100k markets: far beyond what the simulated
 * chain can trade): the metadata tables (alpha_events, alpha_markets, alpha_series, alpha_tags,
 * alpha_tag_relations, as the sync writes them), the condition-level market analytics (alpha_market_totals,
 * alpha_market_rolling), the outcome tokens and resolutions of the chain (alpha_tokens, alpha_lifecycle
 * `condition_resolved`) and a fresh book of every open market's tokens (alpha_book_quotes). It returns the
 * catalog it wrote as plain data, the ground truth the tests compare the API with. Deterministic: the same
 * options give the same catalog. It does not build the lists (analytics/catalog/ does).
 *
 * Shape: five categories, each with a category tag (slug = the category's slug), child tags below it and
 * grandchild tags below some children, related both ways as the upstream's related-tags are; events carry
 * their category tag, one child and sometimes a grandchild; a quarter of the events belong to a series.
 * About 40 % of the events are closed (every market closed), half of those resolved on chain (payout
 * [1,0], [0,1], or now and then a split [1,1]); open events may hold a closed market. Volumes spread over
 * four orders of magnitude, rolling windows nested (1d ≤ 7d ≤ 30d ≤ all time); 5 % of markets have no end
 * date; titles are drawn from a fixed vocabulary so word searches find several rows.
 */
import type { ClickHouse } from '../core/clickhouse/index.ts';
import { insertColumns, type TableDescription } from '../core/clickhouse/table.ts';
import { ALPHA_MARKET_ROLLING, ALPHA_MARKET_TOTALS } from '../schemas/tables/alpha-analytics.ts';
import { ALPHA_BOOK_QUOTES } from '../schemas/tables/alpha-book.ts';
import {
  ALPHA_EVENTS,
  ALPHA_MARKETS,
  ALPHA_SERIES,
  ALPHA_TAG_RELATIONS,
  ALPHA_TAGS,
} from '../schemas/tables/alpha-catalog.ts';
import { ALPHA_LIFECYCLE, ALPHA_TOKENS } from '../schemas/tables/alpha-chain.ts';
import { createRng, type Rng } from './world/rng.ts';

const DAY = 86_400_000;
const USD = 1_000_000;

export interface SyntheticCatalogOptions {
  seed: string;
  events: number;
  /** Markets per event, inclusive range (default [1, 8]). */
  marketsPerEvent?: [number, number];
  /** "Now" of the world, Unix ms: books are observed a minute before it, resolutions happen before it. */
  now: number;
  /** Rows per insert (default 5,000). */
  batchRows?: number;
}

export interface SyntheticRolling {
  volume_1d: number;
  volume_7d: number;
  volume_30d: number;
  trades_1d: number;
  trades_7d: number;
  trades_30d: number;
  oi_change_1d: number;
  oi_change_7d: number;
  oi_change_30d: number;
}

export interface SyntheticMarket {
  id: string;
  conditionId: string;
  questionId: string;
  slug: string;
  eventId: string;
  question: string;
  outcomes: [string, string];
  tokenIds: [string, string];
  /** The metadata's `closed`. */
  closed: boolean;
  /** Payout numerators once resolved on chain, else null. */
  payout: [number, number] | null;
  createdAt: number;
  endDate: number | null;
  closedTime: number | null;
  /** All-time USD volume and trades, current open interest (USD), whole cents. */
  volumeUsd: number;
  trades: number;
  openInterestUsd: number;
  rolling: SyntheticRolling;
  /** Book midpoint of each outcome token (null: resolved markets have no book). */
  mids: [number | null, number | null];
  /** The first outcome's book levels. */
  bids: { price: number; size: number }[];
  asks: { price: number; size: number }[];
  negRisk: boolean;
}

export interface SyntheticEvent {
  id: string;
  slug: string;
  title: string;
  category: string;
  tagIds: string[];
  seriesId: string | null;
  createdAt: number;
  startDate: number;
  endDate: number | null;
  marketIds: string[];
  negRisk: boolean;
}

export interface SyntheticTag {
  id: string;
  slug: string;
  label: string;
  parentId: string | null;
}

export interface SyntheticSeries {
  id: string;
  slug: string;
  title: string;
  recurrence: string;
  eventIds: string[];
}

export interface SyntheticCatalog {
  now: number;
  events: SyntheticEvent[];
  markets: SyntheticMarket[];
  tags: SyntheticTag[];
  series: SyntheticSeries[];
  /** Category labels. */
  categories: string[];
}

const CATEGORIES: Record<string, string[]> = {
  Sports: ['nba', 'nfl', 'soccer', 'tennis', 'nhl', 'golf'],
  Crypto: ['bitcoin', 'ethereum', 'solana', 'defi', 'etf'],
  Politics: ['elections', 'congress', 'courts', 'world-leaders', 'polls'],
  Economics: ['fed', 'inflation', 'jobs', 'gdp', 'housing'],
  Culture: ['movies', 'music', 'tech', 'awards', 'space'],
};
const SUBJECTS = [
  'Bitcoin',
  'Ethereum',
  'Solana',
  'The Fed',
  'Inflation',
  'Unemployment',
  'The Lakers',
  'The Chiefs',
  'Arsenal',
  'Apple',
  'Nvidia',
  'SpaceX',
  'Congress',
  'The Senate',
  'Taylor Swift',
  'Oppenheimer',
];
const VERBS = ['reach', 'exceed', 'fall below', 'win', 'announce', 'cut', 'raise', 'launch', 'pass', 'lose'];
const OBJECTS = [
  '100k',
  'the title',
  'rates',
  'a new record',
  'the election',
  'the playoffs',
  'a merger',
  'the award',
  'orbit',
  'the bill',
];
const MONTHS = ['January', 'March', 'June', 'September', 'December'];
const RECURRENCES = ['daily', 'weekly', 'monthly'];

/** `YYYY-MM-DD HH:MM:SS.mmm` (UTC): how JSONEachRow reads a DateTime64(3). */
const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const cents = (x: number) => Math.round(x * 100) / 100;
const slugOf = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
const hex64 = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

/** A row of `t` with every written column at its type's zero value, then `values`. */
function row(t: TableDescription, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of insertColumns(t)) {
    const ch = t.columns[name]!.ch;
    out[name] = ch.startsWith('Nullable')
      ? null
      : ch.startsWith('Array')
        ? []
        : ch === 'Bool'
          ? false
          : ch.startsWith('DateTime')
            ? chTime(0)
            : ch === 'String' || ch.startsWith('LowCardinality')
              ? ''
              : ch.startsWith('Enum8')
                ? (/'([^']+)'/.exec(ch)?.[1] ?? '')
                : ch === 'UInt64' || ch === 'Int64'
                  ? '0'
                  : 0;
  }
  for (const [k, v] of Object.entries(values)) {
    if (!(k in out)) throw new Error(`${t.name} has no column ${k}`);
    out[k] = typeof v === 'number' && t.columns[k]!.ch.includes('DateTime') ? chTime(v) : v;
  }
  return out;
}

function makeTags(): { tags: SyntheticTag[]; byCategory: Map<string, SyntheticTag[]> } {
  const tags: SyntheticTag[] = [];
  const byCategory = new Map<string, SyntheticTag[]>();
  let id = 100;
  for (const [category, children] of Object.entries(CATEGORIES)) {
    const top = { id: String(id++), slug: slugOf(category), label: category, parentId: null };
    tags.push(top);
    const list: SyntheticTag[] = [top];
    for (const child of children) {
      const c = { id: String(id++), slug: child, label: child.replace(/-/g, ' '), parentId: top.id };
      tags.push(c);
      list.push(c);
      // Every other child has two grandchildren.
      if (children.indexOf(child) % 2 === 0) {
        for (const suffix of ['futures', 'props']) {
          const g = {
            id: String(id++),
            slug: `${child}-${suffix}`,
            label: `${child} ${suffix}`,
            parentId: c.id,
          };
          tags.push(g);
          list.push(g);
        }
      }
    }
    byCategory.set(category, list);
  }
  return { tags, byCategory };
}

function rollingOf(rng: Rng, volume: number, trades: number): SyntheticRolling {
  const v30 = cents(volume * rng.float(0.2, 1));
  const v7 = cents(v30 * rng.float(0.1, 1));
  const v1 = cents(v7 * rng.float(0, 1));
  const t30 = Math.round(trades * rng.float(0.2, 1));
  const t7 = Math.round(t30 * rng.float(0.1, 1));
  const t1 = Math.round(t7 * rng.next());
  const oi = () => cents(rng.float(-5_000, 20_000));
  return {
    volume_1d: v1,
    volume_7d: v7,
    volume_30d: v30,
    trades_1d: t1,
    trades_7d: t7,
    trades_30d: t30,
    oi_change_1d: oi(),
    oi_change_7d: oi(),
    oi_change_30d: oi(),
  };
}

/** The catalog of `o`, as plain data (nothing written). */
export function syntheticCatalog(o: SyntheticCatalogOptions): SyntheticCatalog {
  const rng = createRng(`synthetic-catalog/${o.seed}`);
  const [minM, maxM] = o.marketsPerEvent ?? [1, 8];
  const { tags, byCategory } = makeTags();
  const categories = Object.keys(CATEGORIES);
  const events: SyntheticEvent[] = [];
  const markets: SyntheticMarket[] = [];
  const series: SyntheticSeries[] = [];
  for (const category of categories) {
    for (const r of RECURRENCES) {
      const title = `${category} ${r} ${series.length + 1}`;
      series.push({
        id: String(9000 + series.length),
        slug: slugOf(title),
        title,
        recurrence: r,
        eventIds: [],
      });
    }
  }
  let marketSeq = 0;
  for (let e = 0; e < o.events; e++) {
    const er = rng.fork(`event/${e}`);
    const category = er.pick(categories);
    const list = byCategory.get(category)!;
    const top = list[0]!;
    const child = er.pick(list.filter((t) => t.parentId === top.id));
    const grand = list.filter((t) => t.parentId === child.id);
    const tagIds = [top.id, child.id];
    if (grand.length > 0 && er.chance(0.5)) tagIds.push(er.pick(grand).id);
    const subject = er.pick(SUBJECTS);
    const title = `Will ${subject} ${er.pick(VERBS)} ${er.pick(OBJECTS)} by ${er.pick(MONTHS)} ${e}?`;
    const createdAt = o.now - er.int(1, 365) * DAY - er.int(0, DAY - 1);
    const closedEvent = er.chance(0.4);
    const endDate = er.chance(0.05)
      ? null
      : closedEvent
        ? o.now - er.int(1, 60) * DAY
        : o.now + er.int(1, 120) * DAY;
    const n = er.int(minM, maxM);
    const negRisk = n > 2 && er.chance(0.5);
    const inSeries = er.chance(0.25) ? er.pick(series.filter((s) => s.title.startsWith(category))) : null;
    const event: SyntheticEvent = {
      id: String(10_000 + e),
      slug: `${slugOf(title)}-${e}`,
      title,
      category,
      tagIds,
      seriesId: inSeries?.id ?? null,
      createdAt,
      startDate: createdAt + er.int(0, 3) * DAY,
      endDate,
      marketIds: [],
      negRisk,
    };
    inSeries?.eventIds.push(event.id);
    for (let m = 0; m < n; m++) {
      const mr = er.fork(`market/${m}`);
      const seq = marketSeq++;
      const closed = closedEvent || mr.chance(0.1);
      const resolved = closed && mr.chance(0.5);
      const payout: [number, number] | null = resolved
        ? mr.chance(0.05)
          ? [1, 1]
          : mr.chance(0.5)
            ? [1, 0]
            : [0, 1]
        : null;
      const volumeUsd = cents(10 ** mr.float(1, 6));
      const trades = Math.max(1, Math.round(volumeUsd / mr.float(20, 200)));
      const mid0 = resolved ? null : Math.round(mr.float(0.02, 0.98) * 1000) / 1000;
      const alt = n > 1 ? ` (option ${m + 1})` : '';
      const question = `${title.replace(/\?$/, '')}${alt}?`;
      const levels = (side: 'bid' | 'ask') =>
        mid0 === null
          ? []
          : [0.01, 0.02, 0.03].map((d) => ({
              price: Math.round((side === 'bid' ? mid0 - d : mid0 + d) * 1000) / 1000,
              size: Math.round(mr.float(10, 5_000)),
            }));
      const market: SyntheticMarket = {
        id: String(500_000 + seq),
        conditionId: hex64(BigInt(seq) * 7919n + 0xc0ffeen),
        questionId: hex64(BigInt(seq) * 104729n + 0xbeefn),
        slug: `${slugOf(question)}-${seq}`,
        eventId: event.id,
        question,
        outcomes: ['Yes', 'No'],
        tokenIds: [String(10n ** 20n + BigInt(seq) * 2n), String(10n ** 20n + BigInt(seq) * 2n + 1n)],
        closed,
        payout,
        createdAt: createdAt + mr.int(0, DAY),
        endDate,
        closedTime: closed ? Math.min(o.now - DAY, (endDate ?? o.now) - mr.int(0, DAY)) : null,
        volumeUsd,
        trades,
        openInterestUsd: cents(volumeUsd * mr.float(0, 0.5)),
        rolling: rollingOf(mr, volumeUsd, trades),
        mids: mid0 === null ? [null, null] : [mid0, Math.round((1 - mid0) * 1000) / 1000],
        bids: levels('bid').filter((l) => l.price > 0),
        asks: levels('ask').filter((l) => l.price < 1),
        negRisk,
      };
      markets.push(market);
      event.marketIds.push(market.id);
    }
    events.push(event);
  }
  return { now: o.now, events, markets, tags, series, categories };
}

/** Writes the catalog of `o` into the source tables (see the header) and returns it. */
export async function writeSyntheticCatalog(
  ch: ClickHouse,
  o: SyntheticCatalogOptions,
): Promise<SyntheticCatalog> {
  const cat = syntheticCatalog(o);
  const batch = o.batchRows ?? 5_000;
  const observed = o.now - 60_000;
  const put = async (t: TableDescription, rows: Record<string, unknown>[]) => {
    for (let i = 0; i < rows.length; i += batch) {
      await ch.insert(`sim.synthetic-catalog.${t.name}`, t.name, rows.slice(i, i + batch));
    }
  };
  const version = { content_hash: 'synthetic', observed_at: observed };
  const marketById = new Map(cat.markets.map((m) => [m.id, m]));
  const seriesById = new Map(cat.series.map((s) => [s.id, s]));

  await put(
    ALPHA_TAGS,
    cat.tags.map((t) => row(ALPHA_TAGS, { id: t.id, label: t.label, slug: t.slug, ...version })),
  );
  const relations: Record<string, unknown>[] = [];
  for (const t of cat.tags) {
    const related = cat.tags.filter((x) => x.parentId === t.id || t.parentId === x.id);
    related.forEach((r, i) => {
      relations.push(
        row(ALPHA_TAG_RELATIONS, {
          id: String(Number(t.id) * 1000 + i),
          tag_id: t.id,
          related_tag_id: r.id,
          rank: i + 1,
          ...version,
        }),
      );
    });
  }
  await put(ALPHA_TAG_RELATIONS, relations);
  await put(
    ALPHA_SERIES,
    cat.series.map((s) =>
      row(ALPHA_SERIES, {
        id: s.id,
        ticker: s.slug.toUpperCase(),
        slug: s.slug,
        title: s.title,
        recurrence: s.recurrence,
        active: true,
        created_at: o.now - 400 * DAY,
        event_ids: s.eventIds,
        ...version,
      }),
    ),
  );
  await put(
    ALPHA_EVENTS,
    cat.events.map((e) => {
      const ms = e.marketIds.map((id) => marketById.get(id)!);
      const closed = ms.every((m) => m.closed);
      return row(ALPHA_EVENTS, {
        id: e.id,
        ticker: e.slug,
        slug: e.slug,
        title: e.title,
        description: `Synthetic event ${e.id}.`,
        category: e.category,
        image: `https://sim.pmdata.local/images/${e.slug}.png`,
        icon: `https://sim.pmdata.local/icons/${e.slug}.png`,
        start_date: e.startDate,
        creation_date: e.createdAt,
        end_date: e.endDate,
        closed_time: closed ? Math.max(...ms.map((m) => m.closedTime ?? 0)) : null,
        created_at: e.createdAt,
        active: true,
        closed,
        neg_risk: e.negRisk,
        enable_neg_risk: e.negRisk,
        neg_risk_market_id: e.negRisk ? hex64(BigInt(e.id)) : null,
        series_slug: e.seriesId ? seriesById.get(e.seriesId)!.slug : '',
        series_ids: e.seriesId ? [e.seriesId] : [],
        tag_ids: e.tagIds,
        market_ids: e.marketIds,
        ...version,
      });
    }),
  );
  await put(
    ALPHA_MARKETS,
    cat.markets.map((m) =>
      row(ALPHA_MARKETS, {
        id: m.id,
        event_id: m.eventId,
        condition_id: m.conditionId,
        question_id: m.questionId,
        slug: m.slug,
        question: m.question,
        description: `Resolves Yes if ${m.question}`,
        outcomes: m.outcomes,
        outcome_prices: m.mids.map((p) => String(p ?? 0)),
        clob_token_ids: m.tokenIds,
        start_date: m.createdAt,
        end_date: m.endDate,
        closed_time: m.closedTime,
        created_at: m.createdAt,
        active: true,
        closed: m.closed,
        accepting_orders: !m.closed,
        enable_order_book: true,
        neg_risk: m.negRisk,
        ...version,
      }),
    ),
  );
  await put(
    ALPHA_TOKENS,
    cat.markets.flatMap((m, i) =>
      m.tokenIds.map((token, k) =>
        row(ALPHA_TOKENS, {
          chain_id: 137,
          token_id: token,
          condition_id: m.conditionId,
          outcome_index: k,
          complement_token_id: m.tokenIds[1 - k],
          neg_risk: m.negRisk,
          source: 'condition_prepared',
          block_number: 1 + i,
          tx_hash: hex64(BigInt(i)),
          log_index: k,
        }),
      ),
    ),
  );
  await put(
    ALPHA_LIFECYCLE,
    cat.markets.flatMap((m, i) =>
      m.payout === null
        ? []
        : [
            row(ALPHA_LIFECYCLE, {
              chain_id: 137,
              block_number: 1_000_000 + i,
              block_hash: hex64(BigInt(1_000_000 + i)),
              block_time: m.closedTime ?? o.now - DAY,
              tx_hash: hex64(BigInt(2_000_000 + i)),
              log_index: 0,
              kind: 'condition_resolved',
              version: 1,
              condition_id: m.conditionId,
              question_id: m.questionId,
              outcome_slot_count: 2,
              payout_numerators: m.payout.map(String),
              status: 'confirmed',
            }),
          ],
    ),
  );
  const base = (usd: number) => String(Math.round(usd * USD));
  await put(
    ALPHA_MARKET_TOTALS,
    cat.markets.map((m) =>
      row(ALPHA_MARKET_TOTALS, {
        level: 'condition',
        id: m.conditionId,
        volume: base(m.volumeUsd),
        buy_volume: base(cents(m.volumeUsd / 2)),
        sell_volume: base(m.volumeUsd - cents(m.volumeUsd / 2)),
        trades: String(m.trades),
        buys: String(Math.ceil(m.trades / 2)),
        sells: String(Math.floor(m.trades / 2)),
        first_trade_time: m.createdAt,
        last_trade_time: Math.min(o.now, m.closedTime ?? o.now),
        open_interest: base(m.openInterestUsd),
        version: 1,
      }),
    ),
  );
  await put(
    ALPHA_MARKET_ROLLING,
    cat.markets.map((m) => {
      const r = m.rolling;
      const values: Record<string, unknown> = {
        level: 'condition',
        id: m.conditionId,
        computed_at: observed,
        version: 1,
      };
      for (const w of ['1d', '7d', '30d'] as const) {
        const v = r[`volume_${w}`];
        const t = r[`trades_${w}`];
        values[`volume_${w}`] = base(v);
        values[`buy_volume_${w}`] = base(cents(v / 2));
        values[`sell_volume_${w}`] = base(v - cents(v / 2));
        values[`trades_${w}`] = String(t);
        values[`buys_${w}`] = String(Math.ceil(t / 2));
        values[`sells_${w}`] = String(Math.floor(t / 2));
        values[`oi_change_${w}`] = base(r[`oi_change_${w}`]);
      }
      return row(ALPHA_MARKET_ROLLING, values);
    }),
  );
  await put(
    ALPHA_BOOK_QUOTES,
    cat.markets.flatMap((m) =>
      m.mids[0] === null
        ? []
        : m.tokenIds.map((token, k) => {
            const flip = (l: { price: number; size: number }) => ({
              price: Math.round((1 - l.price) * 1000) / 1000,
              size: l.size,
            });
            const bids = k === 0 ? m.bids : m.asks.map(flip);
            const asks = k === 0 ? m.asks : m.bids.map(flip);
            return row(ALPHA_BOOK_QUOTES, {
              token_id: token,
              observed_at: observed,
              condition_id: m.conditionId,
              book_time: observed,
              hash: `synthetic-${token}`,
              best_bid: bids[0]?.price ?? null,
              best_ask: asks[0]?.price ?? null,
              mid: bids[0] && asks[0] ? m.mids[k] : null,
              bid_prices: bids.map((l) => l.price),
              bid_sizes: bids.map((l) => l.size),
              ask_prices: asks.map((l) => l.price),
              ask_sizes: asks.map((l) => l.size),
              tick_size: '',
            });
          }),
    ),
  );
  return cat;
}
