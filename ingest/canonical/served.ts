/**
 * What canonical keys are derived from: each venue's stored markets, the served fields only (the
 * common columns of every `<venue>_markets` table; for alpha its catalog tables). Never a venue's
 * internal or simulated truth: a key is what a reader of the venue's pages could derive.
 */
import { alphaServedMarket, type ServedMarket } from '../../core/canonical-id.ts';
import type { ClickHouse } from '../../core/clickhouse/index.ts';

export const CANONICAL_VENUES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const;
export type CanonicalVenue = (typeof CANONICAL_VENUES)[number];

export const isCanonicalVenue = (v: string): v is CanonicalVenue =>
  (CANONICAL_VENUES as readonly string[]).includes(v);

/** One stored market as the key rules see it. */
export interface StoredMarket {
  /** The venue's market key (alpha market id, beta ticker, gamma slug, delta/epsilon market id). */
  market: string;
  /** The parent event's key ('' when none): alternatives are counted within it. */
  event: string;
  /** One per outcome ('' where the venue has none). */
  tokenIds: string[];
  served: ServedMarket;
}

/** The market key column of each REST venue's `<venue>_markets` table. */
const MARKET_KEY: Record<Exclude<CanonicalVenue, 'alpha'>, string> = {
  beta: 'ticker',
  gamma: 'slug',
  delta: 'market_id',
  epsilon: 'market_id',
};

interface VenueRow {
  market: string;
  title: string;
  outcomes: string[];
  token_ids: string[];
  end_ms: string | number | null;
  event_key: string;
  event_title: string;
  group_label: string | null;
}

interface AlphaRow {
  market: string;
  question: string;
  outcomes: string[];
  token_ids: string[];
  end_ms: string | number | null;
  event_id: string;
  event_title: string | null;
  group_item_title: string;
  neg_risk: boolean | number;
}

const ms = (v: string | number | null) => (v === null ? null : Number(v));

/** Every stored market of `venue` (FINAL: the newest version of each). */
export async function readStoredMarkets(ch: ClickHouse, venue: CanonicalVenue): Promise<StoredMarket[]> {
  if (venue === 'alpha') {
    const rows = await ch.query<AlphaRow>(
      'canonical.alpha.markets',
      `SELECT m.id AS market, m.question AS question, m.outcomes AS outcomes, m.clob_token_ids AS token_ids,
              toUnixTimestamp64Milli(m.end_date) AS end_ms, m.event_id AS event_id,
              e.title AS event_title, m.group_item_title AS group_item_title, m.neg_risk AS neg_risk
       FROM (SELECT * FROM alpha_markets FINAL) AS m
       LEFT JOIN (SELECT id, title FROM alpha_events FINAL) AS e ON e.id = m.event_id
       ORDER BY m.id
       SETTINGS join_use_nulls = 1`,
    );
    return rows.map((r) => ({
      market: r.market,
      event: r.event_id,
      tokenIds: r.outcomes.map((_, i) => r.token_ids[i] ?? ''),
      served: alphaServedMarket(
        {
          question: r.question,
          outcomes: r.outcomes,
          end_date: ms(r.end_ms),
          group_item_title: r.group_item_title,
          neg_risk: Boolean(r.neg_risk),
        },
        r.event_title ?? '',
      ),
    }));
  }
  const key = MARKET_KEY[venue];
  const rows = await ch.query<VenueRow>(
    `canonical.${venue}.markets`,
    `SELECT toString(${key}) AS market, title, outcomes, token_ids,
            toUnixTimestamp64Milli(end_time) AS end_ms, event_key, event_title, group_label
     FROM ${venue}_markets FINAL
     ORDER BY ${key}`,
  );
  return rows.map((r) => ({
    market: r.market,
    event: r.event_key,
    tokenIds: r.outcomes.map((_, i) => r.token_ids[i] ?? ''),
    served: {
      title: r.title,
      outcomes: r.outcomes,
      endTime: ms(r.end_ms),
      eventTitle: r.event_title,
      groupLabel: r.group_label,
    },
  }));
}
