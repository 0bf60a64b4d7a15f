/**
 * beta's book feed (docs/orderbooks.md "beta's book feed"): one WebSocket connection to BETA_WS_URL (the
 * upstream's `/trade-api/ws/v2`, signed with beta's access headers) subscribed to the `orderbook_delta`
 * channel of every open ticker of `beta_markets`, re-read every `refreshMs` (new tickers subscribed,
 * closed ones removed from their subscription), every data message written to `beta_book_ticks`:
 * - `orderbook_snapshot`: a row per level (is_snapshot, delta = the level's size; an empty book: one row at
 *   price 0, size 0), `resync` when it re-snapshots after a gap or a reconnect;
 * - `orderbook_delta`: one row (delta = the signed change);
 * prices and sizes as exact decimal strings, `ts` the message's `ts` (else its arrival), `received_at` its
 * arrival, both on the upstream's clock (the wall clock moved by the handshake's `Date`, as the REST
 * clients' clock: ingest/http/client.ts). Rows are inserted in batches (`flushRows` or every `flushMs`);
 * a full batch in flight pauses the socket (backpressure).
 * A seq gap (or an unreadable data message) asks the subscription's snapshots again (`get_snapshot`); a
 * lost connection reconnects with backoff and resubscribes; both are logged and counted
 * (`pmdata_feed_resyncs_total`), and the snapshots that follow are marked `resync`.
 * The feed keeps the books it rebuilds (book-ticks.ts) and every `snapshotMs` (ORDERBOOK_POLL_S) records
 * them as `ws` snapshots (ingest/orderbooks/store.ts); a book between a gap and its re-snapshot is not.
 * After each batch it records its position (ingest/feed.ts): the status page's lag.
 */
import { constants, createPrivateKey, type KeyObject, sign } from 'node:crypto';
import fs from 'node:fs';
import WebSocket from 'ws';
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { insertColumns } from '../../../core/clickhouse/table.ts';
import { createDataVersions, type DataVersions } from '../../../core/data-version.ts';
import type { Deps } from '../../../core/deps.ts';
import type { Logger } from '../../../core/logger.ts';
import { feedMessages, feedResyncs } from '../../../core/metrics.ts';
import { countRowsWritten } from '../../../core/ops/ingest-counts.ts';
import { BETA_BOOK_TICKS } from '../../../schemas/tables/beta.ts';
import { defineFeed, recordFeedPosition } from '../../feed.ts';
import { CLOCK_SKEW_MS } from '../../http/client.ts';
import { type BookSnapshot, recordSnapshots } from '../../orderbooks/store.ts';
import { venuesConfig } from '../../rest/config.ts';
import { chTime } from '../../rest/store.ts';
import {
  applyDelta,
  emptyBook,
  fromUnits,
  PRICE_SCALE,
  SIZE_SCALE,
  type TickBook,
  type TickSide,
  toUnits,
  yesBook,
} from './book-ticks.ts';
import { betaConfig } from './config.ts';

export const BETA_FEED_SOURCE = 'beta-feed';
export const BETA_FEED_LEASE = 'beta:feed:lease';

/** A row of beta_book_ticks as one JSONCompactEachRow line (times as text, decimals quoted). */
type TickLine = string;

const TICK_COLUMNS = insertColumns(BETA_BOOK_TICKS);

/** `chTime` of the last few times asked (a message's rows, and consecutive messages, share them). */
function timeTexts(): (ms: number) => string {
  let last = Number.NaN;
  let text = '';
  return (ms) => {
    if (ms !== last) {
      last = ms;
      text = chTime(ms);
    }
    return text;
  };
}

export interface BetaFeedOptions {
  /** The socket (BETA_WS_URL). */
  url: string;
  /** KALSHI-ACCESS-KEY (default `pmdata`). */
  keyId?: string;
  /** Signs the connection (RSA-PSS over `{timestamp}GET{path}`); absent: the signature header says `unsigned`. */
  privateKey?: KeyObject | null;
  /** The tickers to follow (default: the open tickers of beta_markets). */
  tickers?: () => Promise<readonly string[]>;
  /** Re-read of the tickers (ms, default 30 000). */
  refreshMs?: number;
  /** Books recorded as `ws` snapshots every this long (ms, default ORDERBOOK_POLL_S; 0: never). */
  snapshotMs?: number;
  /** ORDERBOOK_KEEPALIVE_S in ms. */
  keepaliveMs?: number;
  /** Rows per insert (default 20 000) and the longest a row waits (ms, default 250). */
  flushRows?: number;
  flushMs?: number;
  /** Reconnect backoff: base and cap (ms, defaults 500 and 30 000). */
  backoffMs?: [number, number];
  /** A connection silent this long (no message, no ping) is dropped and reconnected (ms, default 45 000). */
  idleMs?: number;
  /** Tickers per subscribe command (default 100). */
  tickersPerSubscribe?: number;
  /** The status source its position is recorded under (default `beta-feed`). */
  source?: string;
  /** The wall clock (default Date.now). */
  now?: () => number;
}

export interface BetaFeedSummary {
  connections: number;
  messages: number;
  rows: number;
  gaps: number;
  reconnects: number;
  snapshots: number;
  ms: number;
}

export interface BetaFeed {
  /** Reads until `signal` aborts (or `maxRunMs` passes); flushes what it read unless the lease was lost. */
  run(o: { signal: AbortSignal; leaseLost?: () => boolean; maxRunMs?: number }): Promise<BetaFeedSummary>;
}

/** The feed's settings from the configuration (BETA_WS_URL, beta's key, ORDERBOOK_*). */
export function betaFeedOptions(deps: Pick<Deps, 'config'>): BetaFeedOptions {
  const beta = betaConfig.of(deps.config);
  const venues = venuesConfig.of(deps.config);
  const keyFile = beta.privateKeyFile;
  return {
    url: beta.wsUrl,
    keyId: beta.apiKeyId ?? 'pmdata',
    privateKey: keyFile ? createPrivateKey(fs.readFileSync(keyFile)) : null,
    snapshotMs: venues.orderbookPollS * 1000,
    keepaliveMs: venues.orderbookKeepaliveS * 1000,
    refreshMs: venues.marketsPollS * 1000,
  };
}

/** The access headers of a connection to `url` at `now` (products.md §6: the signature covers `{ts}GET{path}`). */
export function accessHeaders(
  url: string,
  keyId: string,
  key: KeyObject | null | undefined,
  now: number,
): Record<string, string> {
  const ts = String(now);
  const path = new URL(url).pathname;
  const signature = key
    ? sign('sha256', Buffer.from(`${ts}GET${path}`), {
        key,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
      }).toString('base64')
    : 'unsigned';
  return {
    'KALSHI-ACCESS-KEY': keyId,
    'KALSHI-ACCESS-SIGNATURE': signature,
    'KALSHI-ACCESS-TIMESTAMP': ts,
  };
}

/** The open tickers of beta_markets. */
export async function openBetaTickers(ch: ClickHouse): Promise<string[]> {
  const rows = await ch.query<{ ticker: string }>(
    'beta.feed.tickers',
    "SELECT ticker FROM beta_markets FINAL WHERE status = 'open' ORDER BY ticker",
  );
  return rows.map((r) => r.ticker);
}

interface Sub {
  sid: number;
  seq: number;
  tickers: Set<string>;
}

interface MarketState {
  book: TickBook;
  /** Its newest message's ts. */
  ts: number;
  /** The sid that carries it. */
  sid: number | null;
  /** The next snapshot re-snapshots (after a gap or a reconnect). */
  resync: boolean;
  /** Between a gap and its re-snapshot: not recorded as a `ws` snapshot. */
  stale: boolean;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export function createBetaFeed(
  deps: Pick<Deps, 'clickhouse' | 'log' | 'redis'>,
  options: BetaFeedOptions,
): BetaFeed {
  const { clickhouse: ch, redis } = deps;
  const log: Logger = deps.log;
  const source = options.source ?? BETA_FEED_SOURCE;
  const wall = options.now ?? Date.now;
  const tickersOf = options.tickers ?? (() => openBetaTickers(ch));
  const refreshMs = options.refreshMs ?? 30_000;
  const snapshotMs = options.snapshotMs ?? 60_000;
  const keepaliveMs = options.keepaliveMs ?? 900_000;
  const flushRows = options.flushRows ?? 20_000;
  const flushMs = options.flushMs ?? 250;
  const [backoffBase, backoffCap] = options.backoffMs ?? [500, 30_000];
  const idleMs = options.idleMs ?? 45_000;
  const perSubscribe = options.tickersPerSubscribe ?? 100;
  const messages = feedMessages.labels(source);
  const gapsCounter = feedResyncs.labels(source, 'gap');
  const reconnectsCounter = feedResyncs.labels(source, 'reconnect');
  const versions: DataVersions = createDataVersions({ redis });

  return {
    async run(o) {
      const started = wall();
      const summary: BetaFeedSummary = {
        connections: 0,
        messages: 0,
        rows: 0,
        gaps: 0,
        reconnects: 0,
        snapshots: 0,
        ms: 0,
      };
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      o.signal.addEventListener('abort', onAbort);
      const maxTimer = o.maxRunMs === undefined ? undefined : setTimeout(onAbort, o.maxRunMs);
      const lost = o.leaseLost ?? (() => false);
      if (o.signal.aborted) stop.abort();

      /** The upstream's clock minus the wall clock (the handshake's Date). */
      let offset = 0;
      const clock = () => wall() + offset;
      const markets = new Map<string, MarketState>();
      let rows: TickLine[] = [];
      const tsText = timeTexts();
      const arrivalText = timeTexts();
      const tickerJson = new Map<string, string>();
      let inFlight: Promise<void> = Promise.resolve();
      let newest: { ts: number; arrivedAt: number } | null = null;
      let failure: unknown = null;

      /** Inserts the buffered rows (one insert at a time), then records the position. */
      const flush = (): Promise<void> => {
        if (rows.length === 0) return inFlight;
        const batch = rows;
        rows = [];
        const position = newest;
        inFlight = inFlight.then(async () => {
          if (lost()) return;
          try {
            await ch.insertRaw(
              'beta.feed.insert',
              BETA_BOOK_TICKS.name,
              'JSONCompactEachRow',
              TICK_COLUMNS,
              Buffer.from(batch.join('')),
            );
            countRowsWritten(BETA_BOOK_TICKS.name, batch.length);
            summary.rows += batch.length;
            if (position) await recordFeedPosition(redis, source, { ...position, offsetMs: offset });
          } catch (err) {
            failure = err;
            stop.abort();
          }
        });
        return inFlight;
      };

      const recordBooks = async () => {
        if (lost()) return;
        const books: BookSnapshot[] = [];
        for (const [ticker, m] of markets) {
          if (m.stale || m.sid === null) continue;
          books.push({ market: ticker, token_id: '', ts: m.ts, ...yesBook(m.book) });
        }
        if (books.length === 0) return;
        const r = await recordSnapshots(ch, books, {
          venue: 'beta',
          source: 'ws',
          observedAt: clock(),
          keepaliveMs,
          versions,
          label: 'beta.feed.snapshots',
        });
        summary.snapshots += r.written;
      };

      const session = (resync: boolean) =>
        new Promise<void>((resolve) => {
          const headers = accessHeaders(options.url, options.keyId ?? 'pmdata', options.privateKey, wall());
          const ws = new WebSocket(options.url, { headers, handshakeTimeout: 10_000 });
          const subs = new Map<number, Sub>();
          /** Subscribe commands not yet answered: id → tickers. */
          const pending = new Map<number, string[]>();
          let nextId = 1;
          let lastHeard = wall();
          let followed = new Set<string>();
          const timers: NodeJS.Timeout[] = [];
          let ended = false;
          const end = () => {
            if (ended) return;
            ended = true;
            for (const t of timers) clearInterval(t);
            stop.signal.removeEventListener('abort', close);
            resolve();
          };
          const close = () => {
            ws.close(1000);
            // A peer that does not answer the close is cut off.
            setTimeout(() => ws.terminate(), 2_000).unref();
          };
          stop.signal.addEventListener('abort', close, { once: true });

          const send = (m: Record<string, unknown>) => {
            if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m));
          };
          const subscribe = (tickers: readonly string[]) => {
            for (let i = 0; i < tickers.length; i += perSubscribe) {
              const part = tickers.slice(i, i + perSubscribe);
              const id = nextId++;
              pending.set(id, part);
              send({ id, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: part } });
            }
          };
          const follow = async () => {
            let wanted: readonly string[];
            try {
              wanted = await tickersOf();
            } catch (err) {
              log.warn({ err }, 'Failed to read the open beta tickers; the feed keeps its subscriptions');
              return;
            }
            if (ended) return;
            const want = new Set(wanted);
            const fresh = wanted.filter((t) => !followed.has(t));
            const gone = [...followed].filter((t) => !want.has(t));
            followed = want;
            if (fresh.length > 0) subscribe(fresh);
            const bySid = new Map<number, string[]>();
            for (const t of gone) {
              const sid = markets.get(t)?.sid;
              markets.delete(t);
              if (sid == null) continue;
              bySid.set(sid, [...(bySid.get(sid) ?? []), t]);
            }
            for (const [sid, tickers] of bySid) {
              const sub = subs.get(sid);
              if (!sub) continue;
              for (const t of tickers) sub.tickers.delete(t);
              if (sub.tickers.size === 0) {
                subs.delete(sid);
                send({ id: nextId++, cmd: 'unsubscribe', params: { sids: [sid] } });
              } else {
                send({
                  id: nextId++,
                  cmd: 'update_subscription',
                  params: { sids: [sid], action: 'delete_markets', market_tickers: tickers },
                });
              }
            }
            if (fresh.length > 0 || gone.length > 0)
              log.info({ subscribed: fresh.length, removed: gone.length }, 'Followed the open beta tickers');
          };

          /** A seq gap or an unreadable message of `sub`: its books are re-snapshotted. */
          const resnapshot = (sub: Sub, why: Record<string, unknown>) => {
            summary.gaps++;
            gapsCounter.inc();
            log.warn({ sid: sub.sid, ...why }, 'Found a gap in the beta feed; asked its snapshots again');
            for (const t of sub.tickers) {
              const m = markets.get(t);
              if (m) {
                m.resync = true;
                m.stale = true;
              }
            }
            send({
              id: nextId++,
              cmd: 'update_subscription',
              params: { sids: [sub.sid], action: 'get_snapshot' },
            });
          };

          const push = (row: TickLine) => {
            rows.push(row);
            if (rows.length >= flushRows) {
              void flush();
              // Backpressure: no more reading while a full batch waits for the one before it.
              ws.pause();
              inFlight.then(() => ws.resume());
            }
          };

          const onData = (type: string, sid: number, seq: number, msg: Record<string, unknown>) => {
            const arrived = clock();
            const sub = subs.get(sid);
            if (!sub) return; // an unsubscribed sid's last messages
            if (seq !== sub.seq + 1) resnapshotLater.add(sub);
            sub.seq = seq;
            const ticker = msg.market_ticker;
            if (typeof ticker !== 'string') {
              resnapshotLater.add(sub);
              return;
            }
            // A ticker just removed from the subscription: its last messages are not followed.
            if (!sub.tickers.has(ticker)) return;
            const parsedTs =
              typeof msg.ts === 'string' ? Date.parse(msg.ts) : typeof msg.ts === 'number' ? msg.ts : NaN;
            const ts = Number.isFinite(parsedTs) ? parsedTs : arrived;
            const m = markets.get(ticker);
            if (!m) return;
            let json = tickerJson.get(ticker);
            if (json === undefined) {
              json = JSON.stringify(ticker);
              if (tickerJson.size < 1_000_000) tickerJson.set(ticker, json);
            }
            const base: LineBase = {
              ticker: json,
              ts: tsText(ts),
              sid,
              seq,
              received_at: arrivalText(arrived),
            };
            if (type === 'orderbook_snapshot') {
              const book = emptyBook();
              const out: TickLine[] = [];
              for (const side of ['yes', 'no'] as const) {
                const levels = msg[`${side}_dollars_fp`] ?? msg[`${side}_dollars`] ?? [];
                if (!Array.isArray(levels)) return resnapshotLater.add(sub);
                for (const level of levels) {
                  const price =
                    Array.isArray(level) && typeof level[0] === 'string'
                      ? toUnits(level[0], PRICE_SCALE)
                      : null;
                  const size = Array.isArray(level) ? toUnits(String(level[1]), SIZE_SCALE) : null;
                  if (price === null || size === null || price < 0 || size < 0)
                    return resnapshotLater.add(sub);
                  applyDelta(book, side, price, size);
                  out.push(tickRow(base, side, price, size, true, m.resync));
                }
              }
              if (out.length === 0) out.push(tickRow(base, 'yes', 0, 0, true, m.resync));
              for (const r of out) push(r);
              m.book = book;
              m.resync = false;
              m.stale = false;
            } else {
              const side = msg.side;
              const price =
                typeof msg.price_dollars === 'string' ? toUnits(msg.price_dollars, PRICE_SCALE) : null;
              const delta = typeof msg.delta_fp === 'string' ? toUnits(msg.delta_fp, SIZE_SCALE) : null;
              if ((side !== 'yes' && side !== 'no') || price === null || delta === null || price < 0) {
                return resnapshotLater.add(sub);
              }
              applyDelta(m.book, side, price, delta);
              push(tickRow(base, side, price, delta, false, false));
            }
            m.ts = Math.max(m.ts, ts);
            m.sid = sid;
            summary.messages++;
            messages.inc();
            if (newest === null || ts >= newest.ts) newest = { ts, arrivedAt: wall() };
          };
          /** Subscriptions to re-snapshot once the message at hand is handled. */
          const resnapshotLater = new Set<Sub>();

          ws.on('upgrade', (res) => {
            const date = Date.parse(String(res.headers.date ?? ''));
            const off = Number.isFinite(date) ? date - wall() : 0;
            offset = Math.abs(off) <= CLOCK_SKEW_MS ? 0 : off;
          });
          ws.on('unexpected-response', (_req, res) => {
            log.error(
              { status: res.statusCode, url: options.url },
              res.statusCode === 401
                ? 'The beta socket refused the feed (401): check BETA_API_KEY_ID and BETA_PRIVATE_KEY_FILE'
                : 'The beta socket refused the feed',
            );
            res.resume();
            ws.terminate();
          });
          ws.on('open', () => {
            summary.connections++;
            lastHeard = wall();
            log.info({ url: options.url, resync }, 'Connected the beta feed');
            void follow();
            timers.push(setInterval(() => void follow(), refreshMs));
            timers.push(
              setInterval(
                () => {
                  if (wall() - lastHeard > idleMs) {
                    log.warn({ idle_ms: wall() - lastHeard }, 'The beta feed heard nothing; reconnecting');
                    ws.terminate();
                  }
                },
                Math.min(5_000, idleMs),
              ),
            );
          });
          ws.on('ping', () => {
            lastHeard = wall();
          });
          ws.on('message', (raw) => {
            lastHeard = wall();
            let m: { type?: unknown; id?: unknown; sid?: unknown; seq?: unknown; msg?: unknown };
            try {
              m = JSON.parse(String(raw));
            } catch {
              log.warn('Read an unreadable message from the beta feed');
              return;
            }
            const msg = (m.msg && typeof m.msg === 'object' ? m.msg : {}) as Record<string, unknown>;
            switch (m.type) {
              case 'orderbook_snapshot':
              case 'orderbook_delta': {
                if (typeof m.sid !== 'number' || typeof m.seq !== 'number') return;
                onData(m.type, m.sid, m.seq, msg);
                for (const sub of resnapshotLater) resnapshot(sub, { seq: m.seq });
                resnapshotLater.clear();
                return;
              }
              case 'subscribed': {
                const tickers = typeof m.id === 'number' ? pending.get(m.id) : undefined;
                const sid = msg.sid;
                if (!tickers || typeof sid !== 'number') return;
                pending.delete(m.id as number);
                const live = tickers.filter((t) => followed.has(t));
                subs.set(sid, { sid, seq: 0, tickers: new Set(live) });
                for (const t of live) {
                  const m0 = markets.get(t);
                  markets.set(t, {
                    book: m0?.book ?? emptyBook(),
                    ts: m0?.ts ?? 0,
                    sid: null,
                    resync: m0 ? m0.resync : false,
                    stale: true,
                  });
                }
                return;
              }
              case 'error': {
                const tickers = typeof m.id === 'number' ? pending.get(m.id) : undefined;
                if (tickers) pending.delete(m.id as number);
                log.warn(
                  { id: m.id, error: msg, tickers: tickers?.length },
                  'The beta socket answered an error',
                );
                return;
              }
              default:
                return;
            }
          });
          ws.on('error', (err) => {
            if (!stop.signal.aborted) log.warn({ err: err.message }, 'The beta feed connection failed');
          });
          ws.on('close', (code) => {
            if (!stop.signal.aborted) log.warn({ code }, 'The beta feed connection closed');
            end();
          });
          timers.push(setInterval(() => void flush(), flushMs));
          if (snapshotMs > 0) {
            timers.push(
              setInterval(() => {
                recordBooks().catch((err) => log.warn({ err }, 'Failed to record the beta feed books'));
              }, snapshotMs),
            );
          }
        });

      let attempt = 0;
      let resync = false;
      while (!stop.signal.aborted) {
        const before = summary.messages;
        await session(resync);
        if (stop.signal.aborted) break;
        // Every book is re-snapshotted on the next connection.
        for (const m of markets.values()) {
          m.resync = true;
          m.stale = true;
        }
        resync = true;
        attempt = summary.messages > before ? 1 : attempt + 1;
        summary.reconnects++;
        reconnectsCounter.inc();
        const wait = Math.min(backoffCap, backoffBase * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
        log.warn({ attempt, wait_ms: Math.round(wait) }, 'Reconnecting the beta feed');
        await sleep(wait, stop.signal);
      }
      clearTimeout(maxTimer);
      o.signal.removeEventListener('abort', onAbort);
      if (!lost()) {
        await flush();
        if (failure === null && snapshotMs > 0) await recordBooks().catch(() => {});
      } else {
        rows = [];
        log.warn('Lost the beta feed lease; its unwritten rows are left to the new holder');
      }
      await inFlight;
      summary.ms = wall() - started;
      if (failure !== null) throw failure;
      return summary;
    },
  };
}

interface LineBase {
  /** The ticker as a JSON string. */
  ticker: string;
  ts: string;
  sid: number;
  seq: number;
  received_at: string;
}

/** One row's line, in the table's column order (TICK_COLUMNS). */
function tickRow(
  base: LineBase,
  side: TickSide,
  price: number,
  delta: number,
  isSnapshot: boolean,
  resync: boolean,
): TickLine {
  return `[${base.ticker},"${base.ts}",${base.sid},${base.seq},"${side}","${fromUnits(price, PRICE_SCALE)}","${fromUnits(delta, SIZE_SCALE)}",${isSnapshot},${resync},"${base.received_at}"]\n`;
}

/**
 * The feed in beta's unit (index.ts `feeds`): job `beta.feed` (jobs/processors/venue-feeds.ts), lease
 * `beta:feed:lease`, status source `beta-feed`, enqueued every 30 s (a run finding the lease held
 * completes at once).
 */
export const betaFeed = defineFeed<BetaFeedSummary>({
  name: 'feed',
  source: BETA_FEED_SOURCE,
  lease: BETA_FEED_LEASE,
  everyMs: () => 30_000,
  run: (deps, run) =>
    createBetaFeed(deps, betaFeedOptions(deps)).run({
      signal: run.signal,
      leaseLost: run.leaseLost,
      ...(run.maxRunMs === undefined ? {} : { maxRunMs: run.maxRunMs }),
    }),
});
