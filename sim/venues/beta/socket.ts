/**
 * Replica of beta's WebSocket (`/trade-api/ws/v2`, products.md §6, the upstream's "Kalshi" v2 socket), on
 * beta's replica server: the `orderbook_delta` channel only.
 *
 * - The upgrade needs the access headers KALSHI-ACCESS-KEY, KALSHI-ACCESS-SIGNATURE and
 *   KALSHI-ACCESS-TIMESTAMP (401 without one; the signature is not checked). The handshake's `Date` is
 *   the world's time.
 * - `{id, cmd:"subscribe", params:{channels:["orderbook_delta"], market_ticker | market_tickers}}` →
 *   `{type:"subscribed", id, msg:{channel, sid}}`, then one `orderbook_snapshot` per ticker
 *   (`msg: {market_ticker, yes_dollars_fp, no_dollars_fp, ts}`: [[price_dollars, count_fp]] bids of each
 *   side, ascending, best last), then an `orderbook_delta` per level change (`msg: {market_ticker,
 *   price_dollars, delta_fp, side, ts}`, delta_fp the signed change of the level's size).
 * - Changes are found by diffing each subscribed market's book (the world's `book('beta', t, 0)` bids for
 *   yes, outcome 1's bids for no) against what the subscription last sent, whenever the world moved (its
 *   clock, or a trade): checked every `checkMs`. `ts` (RFC 3339 with ms) is the book's own time, the
 *   world time of the change; a snapshot carries it too (the upstream's may not).
 * - `seq` counts a subscription's data messages from 1; sids count across the server's connections, so a
 *   resubscription never reuses a (sid, seq).
 * - `update_subscription` (`params.sids`|`sid`, `action`): `get_snapshot` re-sends the snapshots (of
 *   `market_tickers`, default all the subscription's), `add_markets` (snapshots of the new ones),
 *   `delete_markets`; answered `{id, type:"ok", sid, msg:{market_tickers}}`. `unsubscribe`
 *   (`params.sids`) → `{id, sid, type:"unsubscribed"}` each. Errors: `{id, type:"error", msg:{code, msg}}`.
 * - Pings: a ping frame every `pingMs` (the client's library pongs); a client's ping frame is ponged.
 * - Faults (sim/venues/faults.ts, drawn per data message with channel `socket`): `drop_message` (not
 *   sent, its seq used: the client sees a gap), `disconnect` (the socket closed instead).
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Catalog } from '../../world/catalog.ts';
import type { WorldState } from '../../world/state.ts';
import type { FaultController } from '../faults.ts';
import { dollars, fpCount, iso } from '../format.ts';

export const BETA_SOCKET_PATH = '/trade-api/ws/v2';

export const ACCESS_HEADERS = ['kalshi-access-key', 'kalshi-access-signature', 'kalshi-access-timestamp'];

/** The socket's URL on beta's replica at `httpUrl` (`http://127.0.0.1:port` → `ws://…/trade-api/ws/v2`). */
export function betaSocketUrl(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, 'ws').replace(/\/$/, '')}${BETA_SOCKET_PATH}`;
}

export interface BetaSocketOptions {
  /** How often the world is checked for changes (ms, default 20). */
  checkMs?: number;
  /** Ping frames every this many ms (default 10 000, the upstream's). */
  pingMs?: number;
}

/** A side's bids: price_dollars → count (2 decimals, as the upstream's `_fp`). */
type Side = Map<string, string>;

interface SentBook {
  yes: Side;
  no: Side;
}

interface Subscription {
  sid: number;
  seq: number;
  /** ticker → the book the client was last told. */
  books: Map<string, SentBook>;
}

const CHANNEL = 'orderbook_delta';

/** Upstream error codes (the asyncapi's): the ones this replica answers. */
const ERRORS = {
  unknownCommand: { code: 5, msg: 'Unknown command' },
  params: { code: 2, msg: 'Params required' },
  channel: { code: 6, msg: 'Unknown channel name' },
  ticker: { code: 8, msg: 'Unknown market ticker' },
  sid: { code: 9, msg: 'Unknown subscription id' },
  action: { code: 12, msg: 'Unknown action' },
};

export function betaSocket(
  catalog: Catalog,
  state: WorldState,
  faults: FaultController,
  o: BetaSocketOptions = {},
): (server: http.Server) => () => void {
  const known = new Set(catalog.venues.beta.markets.map((m) => m.key));
  return (server) => {
    const wss = new WebSocketServer({ noServer: true });
    // The handshake's Date in world time, as the replica's HTTP answers.
    wss.on('headers', (headers) => headers.push(`Date: ${new Date(state.now()).toUTCString()}`));
    const connections = new Set<Connection>();
    let nextSid = 1;

    const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = new URL(req.url ?? '/', 'http://replica').pathname;
      if (path !== BETA_SOCKET_PATH) return refuse(socket, 404, 'Not Found');
      if (ACCESS_HEADERS.some((h) => !req.headers[h])) return refuse(socket, 401, 'Unauthorized');
      wss.handleUpgrade(req, socket, head, (ws) => {
        const c = connection(ws);
        connections.add(c);
        ws.on('close', () => connections.delete(c));
      });
    };
    server.on('upgrade', onUpgrade);

    /** The world's books of the tickers asked, once per check (shared by every subscription). */
    let cache = new Map<string, { book: SentBook; ts: number }>();
    const current = (ticker: string) => {
      let hit = cache.get(ticker);
      if (!hit) {
        const yes = state.book('beta', ticker, 0);
        const no = state.book('beta', ticker, 1);
        hit = { book: { yes: sideOf(yes.bids), no: sideOf(no.bids) }, ts: yes.timestamp };
        cache.set(ticker, hit);
      }
      return hit;
    };

    interface Connection {
      ws: WebSocket;
      subs: Map<number, Subscription>;
      /** Sends a data message of `sub` (seq taken), unless a fault drops it or closes the socket. */
      data(sub: Subscription, type: string, msg: Record<string, unknown>): boolean;
    }

    function connection(ws: WebSocket): Connection {
      const c: Connection = {
        ws,
        subs: new Map(),
        data(sub, type, msg) {
          if (ws.readyState !== ws.OPEN) return false;
          sub.seq++;
          const fault = faults.draw('beta', BETA_SOCKET_PATH, 'socket');
          if (fault?.kind === 'disconnect') {
            ws.terminate();
            return false;
          }
          if (fault?.kind === 'drop_message') return true;
          ws.send(JSON.stringify({ type, sid: sub.sid, seq: sub.seq, msg }));
          return true;
        },
      };
      const reply = (m: Record<string, unknown>) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
      };
      const error = (id: unknown, e: { code: number; msg: string }) => reply({ id, type: 'error', msg: e });
      const snapshot = (sub: Subscription, ticker: string) => {
        const { book, ts } = current(ticker);
        sub.books.set(ticker, { yes: new Map(book.yes), no: new Map(book.no) });
        return c.data(sub, 'orderbook_snapshot', {
          market_ticker: ticker,
          yes_dollars_fp: levels(book.yes),
          no_dollars_fp: levels(book.no),
          ts: iso(ts),
        });
      };
      const tickersOf = (params: Record<string, unknown>): string[] | null => {
        const list = Array.isArray(params.market_tickers)
          ? params.market_tickers
          : typeof params.market_ticker === 'string'
            ? [params.market_ticker]
            : null;
        if (!list || list.some((t) => typeof t !== 'string')) return null;
        return list as string[];
      };
      const sidsOf = (params: Record<string, unknown>): number[] =>
        Array.isArray(params.sids)
          ? (params.sids as number[])
          : typeof params.sid === 'number'
            ? [params.sid]
            : [];

      ws.on('message', (raw) => {
        cache = new Map();
        let m: { id?: unknown; cmd?: unknown; params?: unknown };
        try {
          m = JSON.parse(String(raw));
        } catch {
          return error(null, ERRORS.unknownCommand);
        }
        const id = m.id ?? null;
        const params = (m.params && typeof m.params === 'object' ? m.params : {}) as Record<string, unknown>;
        switch (m.cmd) {
          case 'subscribe': {
            const channels = params.channels;
            if (!Array.isArray(channels) || channels.length === 0) return error(id, ERRORS.params);
            if (channels.some((ch) => ch !== CHANNEL)) return error(id, ERRORS.channel);
            const tickers = tickersOf(params);
            if (!tickers || tickers.length === 0) return error(id, ERRORS.params);
            if (tickers.some((t) => !known.has(t))) return error(id, ERRORS.ticker);
            const sub: Subscription = { sid: nextSid++, seq: 0, books: new Map() };
            c.subs.set(sub.sid, sub);
            reply({ type: 'subscribed', id, msg: { channel: CHANNEL, sid: sub.sid } });
            for (const t of new Set(tickers)) if (!snapshot(sub, t)) return;
            return;
          }
          case 'update_subscription': {
            const [sid] = sidsOf(params);
            const sub = sid === undefined ? undefined : c.subs.get(sid);
            if (!sub) return error(id, ERRORS.sid);
            const tickers = tickersOf(params);
            if (tickers?.some((t) => !known.has(t))) return error(id, ERRORS.ticker);
            switch (params.action) {
              case 'get_snapshot': {
                const which = tickers ?? [...sub.books.keys()];
                reply({ id, type: 'ok', sid: sub.sid, msg: { market_tickers: which } });
                for (const t of which) if (!snapshot(sub, t)) return;
                return;
              }
              case 'add_markets': {
                if (!tickers) return error(id, ERRORS.params);
                const fresh = tickers.filter((t) => !sub.books.has(t));
                reply({
                  id,
                  type: 'ok',
                  sid: sub.sid,
                  msg: { market_tickers: [...sub.books.keys(), ...fresh] },
                });
                for (const t of fresh) if (!snapshot(sub, t)) return;
                return;
              }
              case 'delete_markets': {
                if (!tickers) return error(id, ERRORS.params);
                for (const t of tickers) sub.books.delete(t);
                return reply({
                  id,
                  type: 'ok',
                  sid: sub.sid,
                  msg: { market_tickers: [...sub.books.keys()] },
                });
              }
              default:
                return error(id, ERRORS.action);
            }
          }
          case 'unsubscribe': {
            const sids = sidsOf(params);
            if (sids.length === 0) return error(id, ERRORS.params);
            for (const sid of sids) {
              if (!c.subs.delete(sid)) return error(id, ERRORS.sid);
              reply({ id, sid, type: 'unsubscribed' });
            }
            return;
          }
          default:
            return error(id, ERRORS.unknownCommand);
        }
      });
      return c;
    }

    /** Sends every subscription the changes of its books since it was last told. */
    const check = () => {
      cache = new Map();
      for (const c of connections) sendChanges(c);
    };
    /** False once the connection is gone (a `disconnect` fault). */
    const sendChanges = (c: Connection): boolean => {
      for (const sub of c.subs.values()) {
        for (const [ticker, sent] of sub.books) {
          const { book, ts } = current(ticker);
          for (const side of ['yes', 'no'] as const) {
            for (const [price, change] of diff(sent[side], book[side])) {
              if (change.size === null) sent[side].delete(price);
              else sent[side].set(price, change.size);
              const msg = {
                market_ticker: ticker,
                price_dollars: price,
                delta_fp: change.delta,
                side,
                ts: iso(ts),
              };
              if (!c.data(sub, 'orderbook_delta', msg)) return false;
            }
          }
        }
      }
      return true;
    };

    /** The world's position: its clock and beta's trade count (a trade recorded without moving the clock). */
    const position = () => `${state.now()}:${state.trades('beta').at(-1)?.seq ?? 0}`;
    let seen = position();
    const checker = setInterval(() => {
      const now = position();
      if (now === seen || connections.size === 0) {
        seen = now;
        return;
      }
      seen = now;
      check();
    }, o.checkMs ?? 20);
    checker.unref();
    const pinger = setInterval(() => {
      for (const c of connections) if (c.ws.readyState === c.ws.OPEN) c.ws.ping('heartbeat');
    }, o.pingMs ?? 10_000);
    pinger.unref();

    return () => {
      clearInterval(checker);
      clearInterval(pinger);
      server.off('upgrade', onUpgrade);
      for (const c of connections) c.ws.terminate();
      wss.close();
    };
  };
}

function sideOf(bids: readonly { price: number; size: number }[]): Side {
  return new Map(bids.map((l) => [dollars(l.price), fpCount(l.size)]));
}

/** Bids ascending (best last), as the upstream lists them. */
function levels(side: Side): [string, string][] {
  return [...side].sort((a, b) => Number(a[0]) - Number(b[0]));
}

/** Hundredths of a contract of a 2-decimal count. */
const hundredths = (count: string) => Math.round(Number(count) * 100);
const countText = (h: number) => (h / 100).toFixed(2);

/** The level changes from `before` to `after`: price → signed change and the new size (null: removed). */
function diff(before: Side, after: Side): [string, { delta: string; size: string | null }][] {
  const out: [string, { delta: string; size: string | null }][] = [];
  for (const [price, size] of before) {
    const next = after.get(price);
    if (next === undefined) out.push([price, { delta: countText(-hundredths(size)), size: null }]);
    else if (next !== size)
      out.push([price, { delta: countText(hundredths(next) - hundredths(size)), size: next }]);
  }
  for (const [price, size] of after) if (!before.has(price)) out.push([price, { delta: size, size }]);
  return out.sort((a, b) => Number(a[0]) - Number(b[0]));
}

function refuse(socket: Duplex, status: number, text: string): void {
  const body = JSON.stringify({ error: { code: text.toLowerCase().replace(/ /g, '_'), message: text } });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
