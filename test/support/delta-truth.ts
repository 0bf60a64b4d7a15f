/**
 * Venue delta's ground truth, from the world (catalog + state), for comparing the ingested tables: which
 * topics the upstream lists as activated now (a binary market, or a categorical market activated while
 * any of its children trades), and for a set of topics the market and event rows the ingestor must hold:
 * ids, titles, status, prices (0–1: the YES token's last trade price to 4 places, NO = 1 − YES; 1/0 once
 * resolved), volume, outcomes and token ids, the categorical fields. Computed from the world, not from
 * the replica's answers.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Catalog, CatalogEvent } from '../../sim/world/catalog.ts';
import type { WorldState } from '../../sim/world/state.ts';

type Status = 'open' | 'closed' | 'resolved';

export interface DeltaTruthMarket {
  market_id: number;
  title: string;
  status: Status;
  market_type: 'binary' | 'categorical';
  outcomes: string[];
  token_ids: string[];
  prices: number[];
  volume_usd: number;
  event_key: string;
  event_title: string;
  group_label: string | null;
  condition_id: string;
  result_token_id: string | null;
  end_time: number;
  created_time: number;
}

export interface DeltaTruthEvent {
  event_id: number;
  title: string;
  status: Status;
  market_ids: string[];
  volume_usd: number;
}

export interface DeltaTruth {
  markets: Map<number, DeltaTruthMarket>;
  events: Map<number, DeltaTruthEvent>;
}

const usd6 = (x: number) => Math.round(x * 1e6) / 1e6;
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export const isCategorical = (e: CatalogEvent) => e.marketKeys.length > 1;

function topicStatus(state: WorldState, keys: readonly string[]): Status {
  const sts = keys.map((k) => state.status('delta', k).status);
  if (sts.every((s) => s === 'resolved')) return 'resolved';
  if (sts.some((s) => s === 'open')) return 'open';
  return 'closed';
}

/** The topics the upstream lists as activated now. */
export function activatedTopics(catalog: Catalog, state: WorldState): CatalogEvent[] {
  return catalog.venues.delta.events.filter((e) => topicStatus(state, e.marketKeys) === 'open');
}

/** The truth of the given topics (default: every topic of the venue). */
export function deltaTruth(
  catalog: Catalog,
  state: WorldState,
  topics: readonly CatalogEvent[] = catalog.venues.delta.events,
): DeltaTruth {
  const markets = new Map<number, DeltaTruthMarket>();
  const events = new Map<number, DeltaTruthEvent>();
  for (const e of topics) {
    const cat = isCategorical(e);
    for (const k of e.marketKeys) {
      const m = state.market('delta', k);
      const st = state.status('delta', k);
      const resolved = st.status === 'resolved';
      const yes = round4(state.price('delta', k).last);
      const title = m.groupItemTitle ?? m.question;
      markets.set(Number(m.id), {
        market_id: Number(m.id),
        title,
        status: st.status,
        market_type: cat ? 'categorical' : 'binary',
        outcomes: [...m.outcomes],
        token_ids: [...m.tokenIds],
        prices: resolved
          ? [st.winningIndex === 0 ? 1 : 0, st.winningIndex === 0 ? 0 : 1]
          : [yes, round4(1 - yes)],
        volume_usd: usd6(state.volume('delta', k).notional),
        event_key: cat ? e.id : '',
        event_title: cat ? e.title : '',
        group_label: cat ? title : null,
        condition_id: m.chain!.conditionId,
        result_token_id: resolved ? m.tokenIds[st.winningIndex ?? 0]! : null,
        end_time: Math.floor(m.endTime / 1000) * 1000,
        created_time: Math.floor(m.createdAt / 1000) * 1000,
      });
    }
    if (cat) {
      events.set(Number(e.id), {
        event_id: Number(e.id),
        title: e.title,
        status: topicStatus(state, e.marketKeys),
        market_ids: e.marketKeys.map((k) => state.market('delta', k).id),
        volume_usd: usd6(e.marketKeys.reduce((s, k) => s + state.volume('delta', k).notional, 0)),
      });
    }
  }
  return { markets, events };
}

const near = (a: number | null, b: number | null) =>
  a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
const ms = (t: string | null) => (t === null ? null : Date.parse(t));

function compare(kind: string, id: string, have: Record<string, unknown>, want: object, out: string[]) {
  for (const [k, w] of Object.entries(want)) {
    const h = have[k];
    const same =
      k === 'prices'
        ? JSON.stringify((h as number[]).map(round4)) === JSON.stringify(w)
        : typeof w === 'number'
          ? near(h as number, w)
          : JSON.stringify(h) === JSON.stringify(w);
    if (!same) out.push(`${kind} ${id}.${k}: stored ${JSON.stringify(h)}, truth ${JSON.stringify(w)}`);
  }
}

/**
 * The differences between the stored tables (read with FINAL) and the truth, one line each; [] when
 * they agree (every truth market and event stored, nothing else).
 */
export async function deltaDifferences(ch: ClickHouse, truth: DeltaTruth): Promise<string[]> {
  const rows = await ch.query<Record<string, unknown>>(
    'test.delta.markets',
    `SELECT toString(market_id) AS market_id, title, status, market_type, outcomes, token_ids, prices, volume_usd,
            event_key, event_title, group_label, condition_id, result_token_id, end_time, created_time
       FROM delta_markets FINAL ORDER BY market_id`,
  );
  const diffs: string[] = [];
  const seen = new Set<number>();
  for (const r of rows) {
    const id = Number(r.market_id);
    seen.add(id);
    const t = truth.markets.get(id);
    if (!t) {
      diffs.push(`market ${id}: stored, not in the truth`);
      continue;
    }
    const have = {
      ...r,
      market_id: id,
      end_time: ms(r.end_time as string | null),
      created_time: ms(r.created_time as string | null),
    };
    compare('market', String(id), have, t, diffs);
  }
  for (const id of truth.markets.keys()) if (!seen.has(id)) diffs.push(`market ${id}: not stored`);

  const events = await ch.query<Record<string, unknown>>(
    'test.delta.events',
    'SELECT toString(event_id) AS event_id, title, status, market_ids, volume_usd FROM delta_events FINAL',
  );
  const seenEvents = new Set<number>();
  for (const e of events) {
    const id = Number(e.event_id);
    seenEvents.add(id);
    const t = truth.events.get(id);
    if (!t) {
      diffs.push(`event ${id}: stored, not in the truth`);
      continue;
    }
    compare('event', String(id), { ...e, event_id: id }, t, diffs);
  }
  for (const id of truth.events.keys()) if (!seenEvents.has(id)) diffs.push(`event ${id}: not stored`);
  return diffs;
}

/** The same content stored twice for one key (rows without FINAL): a record written twice. */
export async function deltaDoubled(ch: ClickHouse): Promise<string[]> {
  const rows = await ch.query<{ t: string; id: string; n: string }>(
    'test.delta.doubled',
    `SELECT 'market' AS t, toString(market_id) AS id, count() AS n FROM delta_markets
       GROUP BY market_id, content_hash HAVING n > 1
     UNION ALL SELECT 'event' AS t, toString(event_id) AS id, count() AS n FROM delta_events
       GROUP BY event_id, content_hash HAVING n > 1`,
  );
  return rows.map((r) => `${r.t} ${r.id} ×${r.n}`);
}
