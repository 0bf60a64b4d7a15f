/**
 * The venue-markets benchmark's data, generated straight into the tables: `markets` rows per venue in
 * `<venue>_markets` (the four REST venues), their outcomes' canonical ids in `canonical_outcomes`, and
 * `trades` beta trades in `beta_trades`. Titles are built from the sim world's name pools (sports games,
 * elections, crypto thresholds, central-bank and tech questions, with dates and numbers), so the words
 * of a title and the search matches are as varied as the venues' own. A topic is listed on several
 * venues under the same canonical ids (as the same question is), so a `canonical_id` filter finds a few
 * markets per venue. Market rows are written in batches (the columns a venue's table lacks are left
 * out); the trades are one INSERT … SELECT from `numbers()` in the engine, so no trade is held in the
 * process (the engine streams blocks of rows).
 */
import { canonicalId } from '../../core/canonical-id.ts';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { searchWords } from '../../core/search-words.ts';
import { CANDIDATE_NAMES, COUNTRIES, LEAGUES, MONTHS, TECH_EVENTS } from '../../sim/world/catalog-names.ts';

export const REST_VENUES = ['beta', 'gamma', 'delta', 'epsilon'] as const;
export type RestVenue = (typeof REST_VENUES)[number];

const BATCH = 10_000;
const DAY = 86_400_000;

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

const COINS = ['Bitcoin', 'Ethereum', 'Solana', 'XRP', 'Dogecoin'];
const BANKS = ['the Fed', 'the ECB', 'the Bank of England', 'the Bank of Japan'];
const RATE_MOVES = ['cut rates by 25 bps', 'cut rates by 50 bps', 'hold rates', 'hike rates'];
const OFFICES = ['president', 'prime minister', 'mayor of the capital'];

export interface Topic {
  title: string;
  /** The sports event's group ("BOS vs LAL on Nov 26") or the question's own title. */
  event: string;
  category: string;
  endMs: number;
}

/** Topic `i` (deterministic): its title, event title, category and end of trading. */
export function topic(i: number, startMs: number): Topic {
  const r = rng(i * 7919 + 13);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const day = startMs + Math.floor(r() * 365) * DAY;
  const date = new Date(day);
  const dayText = `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
  switch (i % 6) {
    case 0: {
      const league = pick(LEAGUES);
      const a = pick(league.teams);
      let b = pick(league.teams);
      if (b === a) b = league.teams[(league.teams.indexOf(a) + 1) % league.teams.length]!;
      const event = `${a[1]} vs ${b[1]} (${league.name}) on ${dayText}`;
      return {
        title: `Will the ${a[1]} beat the ${b[1]} on ${dayText}?`,
        event,
        category: 'Sports',
        endMs: day,
      };
    }
    case 1: {
      const country = pick(COUNTRIES);
      const who = pick(CANDIDATE_NAMES);
      const office = pick(OFFICES);
      const year = 2026 + Math.floor(r() * 3);
      const event = `${country} ${office} election ${year}`;
      return {
        title: `Will ${who} win the ${year} ${country} ${office} election?`,
        event,
        category: 'Politics',
        endMs: day,
      };
    }
    case 2: {
      const coin = pick(COINS);
      const level = (1 + Math.floor(r() * 200)) * (coin === 'Bitcoin' ? 1000 : 10);
      const event = `${coin} price on ${dayText}`;
      return {
        title: `Will ${coin} reach $${level.toLocaleString('en-US')} by ${dayText}?`,
        event,
        category: 'Crypto',
        endMs: day,
      };
    }
    case 3: {
      const bank = pick(BANKS);
      const move = pick(RATE_MOVES);
      const event = `${bank} decision in ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
      return {
        title: `Will ${bank} ${move} in ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}?`,
        event,
        category: 'Economics',
        endMs: day,
      };
    }
    case 4: {
      const [company, what] = pick(TECH_EVENTS);
      return {
        title: `Will ${company} ${what} by ${dayText}?`,
        event: `${company} in ${date.getUTCFullYear()}`,
        category: 'Tech',
        endMs: day,
      };
    }
    default: {
      const country = pick(COUNTRIES);
      const pct = (1 + Math.floor(r() * 60) / 10).toFixed(1);
      const event = `${country} inflation ${MONTHS[date.getUTCMonth()]}`;
      return {
        title: `Will ${country} inflation be above ${pct}% in ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}?`,
        event,
        category: 'Economics',
        endMs: day,
      };
    }
  }
}

/** The venue's market key of market `i` (beta ticker, gamma slug, delta/epsilon market id). */
export function marketKey(venue: RestVenue, i: number): string {
  switch (venue) {
    case 'beta':
      return `${betaEventTicker(i)}-M${i}`;
    case 'gamma':
      return `bench-gamma-market-${i}`;
    case 'delta':
      return String(1_000_000 + i);
    case 'epsilon':
      return String(5_000_000 + i);
  }
}

/** Beta's event ticker of market `i` (four markets per event). */
export const betaEventTicker = (i: number) => `KXBENCH-E${String(Math.floor(i / 4)).padStart(6, '0')}`;

/**
 * Which topic market `i` of `venue` lists: venues list the same topics with offsets, so topic t is on
 * every venue (alpha excluded) and its canonical ids are shared.
 */
export const topicOf = (venue: RestVenue, i: number, markets: number) =>
  (i + REST_VENUES.indexOf(venue) * 7) % markets;

/** Canonical ids of a topic's two outcomes. */
export const topicIds = (t: number): [string, string] => [
  canonicalId(`bench:${t}:yes`),
  canonicalId(`bench:${t}:no`),
];

const chMs = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

function marketRow(venue: RestVenue, i: number, markets: number, startMs: number, now: number) {
  const t = topic(topicOf(venue, i, markets), startMs);
  const r = rng(i * 31 + REST_VENUES.indexOf(venue) * 1_000_003);
  const key = marketKey(venue, i);
  const statusDraw = r();
  const status = statusDraw < 0.6 ? 'open' : statusDraw < 0.8 ? 'closed' : 'resolved';
  const price = Math.round(r() * 98 + 1) / 100;
  // Heavy-tailed volumes: most markets small, a few large.
  const volume = Math.round(10 ** (1 + r() * 6) * 100) / 100;
  const oi = Math.round(volume * r() * 0.3);
  const created = startMs - Math.floor(r() * 120) * DAY;
  const row: Record<string, unknown> = {
    title: t.title,
    words: searchWords(t.title),
    status,
    outcomes: ['Yes', 'No'],
    token_ids: venue === 'beta' ? ['', ''] : [`${key}1`, `${key}2`],
    prices: [price, Math.round((1 - price) * 100) / 100],
    volume_usd: volume,
    end_time: chMs(t.endMs),
    created_time: chMs(created),
    event_key: venue === 'beta' ? betaEventTicker(i) : '',
    event_title: t.event,
    group_label: null,
    category: t.category,
    tags: [t.category],
    content_hash: `h${i}`,
    observed_at: chMs(now),
  };
  switch (venue) {
    case 'beta':
      Object.assign(row, {
        ticker: key,
        series_ticker: 'KXBENCH',
        yes_subtitle: '',
        no_subtitle: '',
        close_time: chMs(t.endMs),
        open_time: chMs(created),
        last_price: price,
        yes_bid: Math.max(0.01, price - 0.01),
        yes_ask: Math.min(0.99, price + 0.01),
        volume: Math.round(volume / Math.max(price, 0.01)),
        open_interest: Math.round(oi / Math.max(price, 0.01)),
        dollar_volume: Math.floor(volume),
        dollar_open_interest: oi,
        updated_time: chMs(now),
      });
      break;
    case 'gamma': {
      const amm = r() < 0.3;
      Object.assign(row, {
        slug: key,
        condition_id: `0x${(BigInt(i) + 0xabcn).toString(16).padStart(64, '0')}`,
        trade_type: amm ? 'amm' : 'clob',
        open_interest_usd: amm ? oi : null,
        liquidity_usd: Math.round(volume * 0.05),
        expiration_time: chMs(t.endMs),
        categories: [t.category],
        updated_time: chMs(now),
      });
      break;
    }
    case 'delta':
      Object.assign(row, {
        market_id: Number(key),
        slug: `bench-delta-${i}`,
        market_type: 'binary',
        volume_24h_usd: Math.round(volume * 0.02),
        volume_7d_usd: Math.round(volume * 0.1),
        cutoff_time: chMs(t.endMs),
        labels: [t.category],
      });
      break;
    case 'epsilon':
      Object.assign(row, {
        market_id: Number(key),
        market_slug: `bench-epsilon-${i}`,
        slug: `bench-epsilon-${i}`,
        market_variant: 'DEFAULT',
        best_bid: Math.max(0.01, price - 0.01),
        best_ask: Math.min(0.99, price + 0.01),
        bid_depth: Math.round(volume * 0.01),
        ask_depth: Math.round(volume * 0.01),
        updated_time: chMs(now),
      });
      break;
  }
  return row;
}

/** The columns of `table` (DESCRIBE), so rows carry only what the venue's table has. */
async function columnsOf(ch: ClickHouse, table: string): Promise<Set<string>> {
  const rows = await ch.query<{ name: string }>('bench.venue_markets.describe', `DESCRIBE TABLE ${table}`);
  return new Set(rows.map((r) => r.name));
}

/** `markets` markets of `venue` and their two canonical outcomes each, in batches of 10,000. */
export async function writeVenueMarkets(
  ch: ClickHouse,
  venue: RestVenue,
  o: { markets: number; startMs: number; now: number },
): Promise<void> {
  const table = `${venue}_markets`;
  const columns = await columnsOf(ch, table);
  for (let from = 0; from < o.markets; from += BATCH) {
    const rows: object[] = [];
    const canon: object[] = [];
    for (let i = from; i < Math.min(o.markets, from + BATCH); i++) {
      const full = marketRow(venue, i, o.markets, o.startMs, o.now);
      rows.push(Object.fromEntries(Object.entries(full).filter(([k]) => columns.has(k))));
      const t = topicOf(venue, i, o.markets);
      topicIds(t).forEach((id, index) => {
        canon.push({
          venue,
          market: marketKey(venue, i),
          outcome_index: index,
          token_id: venue === 'beta' ? '' : `${marketKey(venue, i)}${index + 1}`,
          key: `bench:${t}:${index === 0 ? 'yes' : 'no'}`,
          id,
          assigned_at: chMs(o.now),
        });
      });
    }
    await ch.insert('bench.venue_markets.markets', table, rows);
    await ch.insert('bench.venue_markets.canonical', 'canonical_outcomes', canon);
  }
}

/**
 * `trades` beta trades over the beta markets written (tickers `marketKey('beta', 0 … markets − 1)`),
 * generated in the engine: the market of trade n is skewed (a cube of a uniform draw: the first markets
 * trade most), times spread evenly over `days` before `endMs`, one trade in ten has a fractional count.
 */
export async function writeBetaTrades(
  ch: ClickHouse,
  o: { trades: number; markets: number; endMs: number; days: number },
): Promise<void> {
  const spanMs = o.days * DAY;
  const u = (salt: number) => `(cityHash64(number, ${salt}) / 18446744073709551616.0)`;
  await ch.command(
    'bench.venue_markets.trades',
    `INSERT INTO beta_trades (trade_id, ticker, count, yes_price, no_price, taker_side, created_time, observed_at)
     SELECT
       lower(hex(cityHash64(number, 7))) AS trade_id,
       concat('KXBENCH-E', leftPad(toString(intDiv(m, 4)), 6, '0'), '-M', toString(m)) AS ticker,
       if(number % 10 = 0, round(1 + ${u(3)} * 200, 2), floor(1 + ${u(3)} * 200)) AS count,
       round(0.01 + ${u(4)} * 0.98, 2) AS yes_price,
       round(1 - yes_price, 2) AS no_price,
       if(${u(5)} < 0.5, 'yes', 'no') AS taker_side,
       fromUnixTimestamp64Milli(toInt64({start_ms:Int64} + intDiv(number * {span_ms:Int64}, {trades:Int64})), 'UTC') AS created_time,
       fromUnixTimestamp64Milli({end_ms:Int64}, 'UTC') AS observed_at
     FROM (SELECT number, toUInt64(floor(pow(${u(2)}, 3) * {markets:UInt64})) AS m FROM numbers({trades:UInt64}))`,
    { start_ms: o.endMs - spanMs, span_ms: spanMs, trades: o.trades, end_ms: o.endMs, markets: o.markets },
  );
}
