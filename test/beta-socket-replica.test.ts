/**
 * beta's WebSocket replica (sim/venues/beta/socket.ts): the access headers, subscribe → subscribed and a
 * snapshot per ticker at seq 1.., deltas per level change as the world moves (the books the messages
 * give equal the world's), get_snapshot, unsubscribe, pings both ways, and the faults drop_message (a
 * seq gap) and disconnect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { betaSocket, betaSocketUrl } from '../sim/venues/beta/socket.ts';
import { createFaultController } from '../sim/venues/faults.ts';
import { startReplicaServer } from '../sim/venues/http.ts';
import { type Replicas, startReplicas } from '../sim/venues/index.ts';
import { type Catalog, generateCatalog } from '../sim/world/catalog.ts';
import { createWorldState, type WorldState } from '../sim/world/state.ts';

const START = Date.UTC(2026, 3, 1);
const HEADERS = {
  'KALSHI-ACCESS-KEY': 'test',
  'KALSHI-ACCESS-SIGNATURE': 'x',
  'KALSHI-ACCESS-TIMESTAMP': String(START),
};

let catalog: Catalog;
let state: WorldState;
let replicas: Replicas;
let url: string;

beforeAll(async () => {
  catalog = generateCatalog({ seed: 'beta-socket', size: 'small', startTime: START });
  state = createWorldState(catalog, { alpha: 'self' });
  state.tick(START + 3_600_000);
  replicas = await startReplicas({ catalog, state });
  url = betaSocketUrl(replicas.urls.beta);
});

afterAll(async () => {
  await replicas?.close();
});

type Msg = { type: string; id?: number; sid?: number; seq?: number; msg?: Record<string, unknown> };

/** A client that keeps every message and waits for those it expects. */
async function connect(headers: Record<string, string> = HEADERS) {
  const ws = new WebSocket(url, { headers });
  const got: Msg[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (raw) => {
    got.push(JSON.parse(String(raw)));
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const until = async (pred: (all: Msg[]) => boolean, ms = 5_000) => {
    const end = Date.now() + ms;
    while (!pred(got)) {
      if (Date.now() > end) throw new Error(`timed out; got ${JSON.stringify(got.slice(-5))}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
  };
  return { ws, got, until, closed, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

/** Open tickers with a book. */
const openTickers = (n: number) =>
  catalog.venues.beta.markets
    .filter((m) => state.status('beta', m.key).status === 'open' && m.startTime <= state.now())
    .slice(0, n)
    .map((m) => m.key);

type Book = { yes: Map<string, number>; no: Map<string, number> };

/** The books the messages give (snapshots replace, deltas add). */
function books(msgs: Msg[]): Map<string, Book> {
  const out = new Map<string, Book>();
  for (const m of msgs) {
    const body = m.msg ?? {};
    const ticker = body.market_ticker as string;
    if (m.type === 'orderbook_snapshot') {
      const b: Book = { yes: new Map(), no: new Map() };
      for (const side of ['yes', 'no'] as const) {
        for (const [p, s] of body[`${side}_dollars_fp`] as [string, string][]) b[side].set(p, Number(s));
      }
      out.set(ticker, b);
    } else if (m.type === 'orderbook_delta') {
      const b = out.get(ticker)!;
      const side = body.side as 'yes' | 'no';
      const p = body.price_dollars as string;
      const size = Math.round(((b[side].get(p) ?? 0) + Number(body.delta_fp)) * 100) / 100;
      if (size > 0) b[side].set(p, size);
      else b[side].delete(p);
    }
  }
  return out;
}

const canonical = (b: Book | undefined) => b && JSON.stringify([[...b.yes].sort(), [...b.no].sort()]);
const same = (a: Book | undefined, b: Book) => canonical(a) === canonical(b);

/** The world's book of a ticker, as the socket's sides. */
function truth(ticker: string): Book {
  const side = (i: number) =>
    new Map(
      state.book('beta', ticker, i).bids.map((l) => [l.price.toFixed(4), Math.round(l.size * 100) / 100]),
    );
  return { yes: side(0), no: side(1) };
}

describe('beta socket replica', () => {
  it('refuses an upgrade without the access headers (401)', async () => {
    for (const drop of Object.keys(HEADERS)) {
      const headers = Object.fromEntries(Object.entries(HEADERS).filter(([k]) => k !== drop));
      const ws = new WebSocket(url, { headers });
      ws.on('error', () => {});
      const status = await new Promise<number>((resolve) => {
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
      });
      ws.terminate();
      expect(status, drop).toBe(401);
    }
  });

  it('subscribes: subscribed, a snapshot per ticker at seq 1.., then deltas that keep the books equal to the world', async () => {
    const c = await connect();
    const tickers = openTickers(3);
    c.send({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: tickers } });
    await c.until((g) => g.filter((m) => m.type === 'orderbook_snapshot').length === 3);
    const subscribed = c.got[0]!;
    expect(subscribed).toMatchObject({ type: 'subscribed', id: 1, msg: { channel: 'orderbook_delta' } });
    const sid = subscribed.msg!.sid as number;
    const snaps = c.got.filter((m) => m.type === 'orderbook_snapshot');
    expect(snaps.map((m) => [m.sid, m.seq, m.msg!.market_ticker])).toEqual(
      tickers.map((t, i) => [sid, i + 1, t]),
    );
    const first = snaps[0]!.msg!;
    expect((first.yes_dollars_fp as string[][])[0]).toEqual([
      expect.stringMatching(/^0\.\d{4}$/),
      expect.stringMatching(/^\d+\.\d\d$/),
    ]);
    for (const t of tickers) expect(canonical(books(c.got).get(t))).toBe(canonical(truth(t)));

    // The world moves: deltas, one per level change, seq continuing, ts the book's time.
    for (let i = 0; i < 5; i++) {
      state.advanceTime(90_000);
      const at = state.now();
      await c.until(() => tickers.every((t) => same(books(c.got).get(t), truth(t))));
      for (const t of tickers) expect(canonical(books(c.got).get(t))).toBe(canonical(truth(t)));
      const deltas = c.got.filter((m) => m.type === 'orderbook_delta');
      expect(deltas.length).toBeGreaterThan(0);
      for (const d of deltas) {
        expect(d.msg).toMatchObject({
          price_dollars: expect.stringMatching(/^0\.\d{4}$/),
          delta_fp: expect.stringMatching(/^-?\d+\.\d\d$/),
          side: expect.stringMatching(/^(yes|no)$/),
        });
        expect(Date.parse(d.msg!.ts as string)).toBeLessThanOrEqual(at);
      }
    }
    const seqs = c.got.filter((m) => m.sid === sid && m.seq !== undefined).map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));

    // get_snapshot re-sends the snapshots, seq going on.
    const before = c.got.length;
    c.send({ id: 2, cmd: 'update_subscription', params: { sids: [sid], action: 'get_snapshot' } });
    await c.until((g) => g.slice(before).filter((m) => m.type === 'orderbook_snapshot').length === 3);
    expect(c.got[before]).toMatchObject({ id: 2, type: 'ok', sid });
    const again = c.got.slice(before).filter((m) => m.type === 'orderbook_snapshot');
    expect(again[0]!.seq).toBe((seqs.at(-1) as number) + 1);

    // unsubscribe: no more messages of the sid.
    c.send({ id: 3, cmd: 'unsubscribe', params: { sids: [sid] } });
    await c.until((g) => g.some((m) => m.type === 'unsubscribed'));
    const n = c.got.length;
    state.advanceTime(120_000);
    await new Promise((r) => setTimeout(r, 150));
    expect(c.got.length).toBe(n);
    c.ws.close();
  });

  it('answers errors: an unknown ticker, channel, sid or command', async () => {
    const c = await connect();
    c.send({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_ticker: 'NOPE' } });
    c.send({ id: 2, cmd: 'subscribe', params: { channels: ['fill'], market_ticker: openTickers(1)[0] } });
    c.send({ id: 3, cmd: 'update_subscription', params: { sids: [99_999], action: 'get_snapshot' } });
    c.send({ id: 4, cmd: 'dance' });
    await c.until((g) => g.length === 4);
    expect(c.got.map((m) => [m.id, m.type, (m.msg as { code: number }).code])).toEqual([
      [1, 'error', 8],
      [2, 'error', 6],
      [3, 'error', 9],
      [4, 'error', 5],
    ]);
    c.ws.close();
  });

  it("pongs a client's ping, and its handshake's Date is the world's time", async () => {
    const ws = new WebSocket(url, { headers: HEADERS });
    const date = new Promise<string>((resolve) =>
      ws.on('upgrade', (res) => resolve(String(res.headers.date))),
    );
    await new Promise<void>((resolve) => ws.on('open', () => resolve()));
    expect(Math.abs(Date.parse(await date) - state.now())).toBeLessThan(1_000);
    const pong = new Promise<string>((resolve) => ws.on('pong', (data) => resolve(String(data))));
    ws.ping('hello');
    expect(await pong).toBe('hello');
    ws.close();
  });

  it('drop_message leaves a seq gap; disconnect closes the socket', async () => {
    const c = await connect();
    const tickers = openTickers(4);
    replicas.faults.enqueue('beta', { kind: 'drop_message' });
    c.send({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: tickers } });
    await c.until((g) => g.filter((m) => m.type === 'orderbook_snapshot').length === 3);
    expect(c.got.filter((m) => m.type === 'orderbook_snapshot').map((m) => m.seq)).toEqual([2, 3, 4]);
    expect(replicas.faults.injectedSocket('beta').drop_message).toBe(1);

    replicas.faults.enqueue('beta', { kind: 'disconnect' });
    state.advanceTime(120_000);
    await c.closed;
    expect(replicas.faults.injectedSocket('beta').disconnect).toBe(1);
  });

  it('sends ping frames (the client pongs)', async () => {
    const faults = createFaultController('ping');
    const server = await startReplicaServer({
      name: 'beta',
      routes: [],
      faults,
      attach: betaSocket(catalog, state, faults, { pingMs: 50 }),
    });
    try {
      const ws = new WebSocket(betaSocketUrl(server.url), { headers: HEADERS });
      const ping = new Promise<string>((resolve) => ws.on('ping', (data) => resolve(String(data))));
      expect(await ping).toBe('heartbeat');
      ws.close();
    } finally {
      await server.close();
    }
  });
});
