/**
 * Venue epsilon's ground truth, from the world (catalog + state), for comparing the ingested tables after
 * a full listing (a reconciliation): every market with its id, title, slug, status, outcomes, tokens, YES
 * price, volume, event, and — for an open market — the best prices and depths of its YES token's book;
 * every event with its title, status and markets; every tag. Computed from the world, not from the
 * replica's answers.
 */
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import type { Catalog } from '../../sim/world/catalog.ts';
import type { WorldState } from '../../sim/world/state.ts';

type Status = 'open' | 'closed' | 'resolved';

const round2 = (x: number) => Number(x.toFixed(2));
const round4 = (x: number) => Number(x.toFixed(4));
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export interface EpsilonTruth {
  markets: Map<string, Record<string, unknown>>;
  events: Map<string, Record<string, unknown>>;
  tags: Map<string, Record<string, unknown>>;
}

export function epsilonTruth(catalog: Catalog, state: WorldState): EpsilonTruth {
  const v = catalog.venues.epsilon;
  const markets = new Map<string, Record<string, unknown>>();
  const statuses = new Map<string, Status>();
  for (const m of v.markets) {
    const st = state.status('epsilon', m.key);
    statuses.set(m.key, st.status);
    const yes =
      st.status === 'resolved' ? (st.winningIndex === 0 ? 1 : 0) : round4(state.price('epsilon', m.key).last);
    let book = { bid: null as number | null, ask: null as number | null, bidDepth: 0, askDepth: 0 };
    if (st.status === 'open') {
      const b = state.book('epsilon', m.key, 0);
      book = {
        bid: b.bids.length ? Math.max(...b.bids.map((l) => round4(l.price))) : null,
        ask: b.asks.length ? Math.min(...b.asks.map((l) => round4(l.price))) : null,
        bidDepth: round6(b.bids.reduce((s, l) => s + round2(l.size), 0)),
        askDepth: round6(b.asks.reduce((s, l) => s + round2(l.size), 0)),
      };
    }
    markets.set(m.id, {
      title: m.question,
      market_slug: m.slug,
      status: st.status,
      outcomes: [...m.outcomes],
      token_ids: [...m.tokenIds],
      yes,
      volume_usd: Number(state.volume('epsilon', m.key).notional.toFixed(6)),
      event_key: m.eventKey,
      best_bid_yes: book.bid,
      best_ask_yes: book.ask,
      bid_depth: book.bidDepth,
      ask_depth: book.askDepth,
    });
  }
  const events = new Map<string, Record<string, unknown>>();
  for (const e of v.events) {
    const sts = e.marketKeys.map((k) => statuses.get(k));
    const status: Status = sts.every((s) => s === 'resolved')
      ? 'resolved'
      : sts.some((s) => s === 'open')
        ? 'open'
        : 'closed';
    events.set(e.id, {
      slug: e.ticker,
      title: e.title,
      status,
      market_ids: e.marketKeys.map((k) => state.market('epsilon', k).id),
    });
  }
  const tags = new Map<string, Record<string, unknown>>();
  for (const t of v.tags) tags.set(String(Number(t.id)), { label: t.label, slug: t.slug });
  return { markets, events, tags };
}

const near = (a: unknown, b: number) =>
  typeof a === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

function compare(kind: string, id: string, have: Record<string, unknown>, want: object, out: string[]) {
  for (const [k, w] of Object.entries(want)) {
    const h = have[k];
    const same = typeof w === 'number' ? near(h, w) : JSON.stringify(h) === JSON.stringify(w);
    if (!same) out.push(`${kind} ${id}.${k}: stored ${JSON.stringify(h)}, truth ${JSON.stringify(w)}`);
  }
}

async function diffTable(
  ch: ClickHouse,
  kind: string,
  sql: string,
  truth: Map<string, Record<string, unknown>>,
  out: string[],
): Promise<void> {
  const rows = await ch.query<Record<string, unknown> & { id: string }>(`test.epsilon.${kind}`, sql);
  const seen = new Set<string>();
  for (const r of rows) {
    seen.add(r.id);
    const t = truth.get(r.id);
    if (!t) out.push(`${kind} ${r.id}: stored, not in the truth`);
    else compare(kind, r.id, r, t, out);
  }
  for (const id of truth.keys()) if (!seen.has(id)) out.push(`${kind} ${id}: not stored`);
}

/** The differences between the stored tables (FINAL) and the truth, one line each; [] when they agree. */
export async function epsilonDifferences(ch: ClickHouse, truth: EpsilonTruth): Promise<string[]> {
  const out: string[] = [];
  await diffTable(
    ch,
    'market',
    `SELECT toString(market_id) AS id, title, market_slug, status, outcomes, token_ids, prices[1] AS yes,
            volume_usd, event_key, outcome_best_bids[1] AS best_bid_yes, outcome_best_asks[1] AS best_ask_yes,
            bid_depth, ask_depth
       FROM epsilon_markets FINAL`,
    truth.markets,
    out,
  );
  await diffTable(
    ch,
    'event',
    'SELECT toString(event_id) AS id, slug, title, status, market_ids FROM epsilon_events FINAL',
    truth.events,
    out,
  );
  await diffTable(
    ch,
    'tag',
    'SELECT toString(tag_id) AS id, label, slug FROM epsilon_tags FINAL',
    truth.tags,
    out,
  );
  return out;
}

/** The same content stored twice for one key (rows without FINAL): a record written twice. */
export async function epsilonDoubled(ch: ClickHouse): Promise<string[]> {
  const rows = await ch.query<{ t: string; id: string; n: string }>(
    'test.epsilon.doubled',
    `SELECT 'market' AS t, toString(market_id) AS id, count() AS n FROM epsilon_markets
       GROUP BY market_id, content_hash HAVING n > 1
     UNION ALL SELECT 'event' AS t, toString(event_id) AS id, count() AS n FROM epsilon_events
       GROUP BY event_id, content_hash HAVING n > 1
     UNION ALL SELECT 'tag' AS t, toString(tag_id) AS id, count() AS n FROM epsilon_tags
       GROUP BY tag_id, content_hash HAVING n > 1`,
  );
  return rows.map((r) => `${r.t} ${r.id} ×${r.n}`);
}
