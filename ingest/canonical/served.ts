/**
 * What canonical keys are derived from: each venue's stored markets, the served fields only, as its
 * contract states them in SQL (schemas/venues/<code>.ts `market`: the common columns of a
 * `<venue>_markets` table; for alpha its catalog tables). Never a venue's internal or simulated truth: a
 * key is what a reader of the venue's pages could derive.
 */
import type { ServedMarket } from '../../core/canonical-id.ts';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { type CanonicalVenue, canonicalContract } from '../../schemas/venues/index.ts';

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

interface Row {
  market: string;
  title: string;
  outcomes: string[];
  token_ids: string[];
  end_ms: string | number | null;
  event_key: string;
  event_title: string;
  group_label: string | null;
}

const ms = (v: string | number | null) => (v === null ? null : Number(v));

/** The SQL reading every stored market of a venue (FINAL: the newest version of each), by key. */
function storedMarketsSql(venue: CanonicalVenue): string {
  const { key, served: s } = canonicalContract(venue).market;
  return `SELECT toString(${key.column}) AS market, ${s.title} AS title, ${s.outcomes} AS outcomes,
            ${s.tokenIds} AS token_ids, toUnixTimestamp64Milli(${s.endTime}) AS end_ms,
            ${s.eventKey} AS event_key, ${s.eventTitle} AS event_title, ${s.groupLabel} AS group_label
     FROM ${s.source}
     ORDER BY ${key.column}`;
}

/** Every stored market of `venue`. */
export async function readStoredMarkets(ch: ClickHouse, venue: CanonicalVenue): Promise<StoredMarket[]> {
  const rows = await ch.query<Row>(`canonical.${venue}.markets`, storedMarketsSql(venue));
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
