/**
 * The book feed benchmark's upstream (bench/ticks/feed.ts), a child process: a WebSocket server speaking
 * beta's `orderbook_delta` protocol (sim/venues/beta/socket.ts's messages) that answers each subscribe
 * with its snapshots, then, once `markets` tickers are subscribed, sends `deltas` deltas round-robin
 * over them as fast as the socket takes them (its send buffer kept under 8 MiB). Tells its parent its
 * port (`{port}`), then `{sent}` when the last delta is queued.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

const markets = Number(process.env.FEED_MARKETS ?? 1000);
const deltas = Number(process.env.FEED_DELTAS ?? 200_000);
const START = Date.UTC(2026, 3, 1);

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
wss.on('listening', () => process.send?.({ port: (wss.address() as AddressInfo).port }));
wss.on('connection', (ws) => {
  let sid = 0;
  const seqs = new Map<string, { sid: number; seq: number }>();
  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as { id: number; cmd: string; params: { market_tickers: string[] } };
    if (m.cmd !== 'subscribe') return;
    const s = { sid: ++sid, seq: 0 };
    ws.send(
      JSON.stringify({ type: 'subscribed', id: m.id, msg: { channel: 'orderbook_delta', sid: s.sid } }),
    );
    for (const t of m.params.market_tickers) {
      seqs.set(t, s);
      ws.send(
        JSON.stringify({
          type: 'orderbook_snapshot',
          sid: s.sid,
          seq: ++s.seq,
          msg: {
            market_ticker: t,
            yes_dollars_fp: [['0.4500', '100.00']],
            no_dollars_fp: [['0.5300', '100.00']],
            ts: new Date(START).toISOString(),
          },
        }),
      );
    }
    if (seqs.size >= markets) stream();
  });
  function stream() {
    const tickers = [...seqs.keys()];
    let i = 0;
    const pump = () => {
      while (i < deltas) {
        if (ws.bufferedAmount > 8 << 20) return setImmediate(pump);
        const t = tickers[i % tickers.length] as string;
        const s = seqs.get(t) as { sid: number; seq: number };
        const price = `0.${String(10 + (i % 80)).padStart(2, '0')}00`;
        const delta = i % 3 === 0 ? '-5.00' : '12.50';
        ws.send(
          `{"type":"orderbook_delta","sid":${s.sid},"seq":${++s.seq},"msg":{"market_ticker":"${t}","price_dollars":"${price}","delta_fp":"${delta}","side":"${i % 2 ? 'yes' : 'no'}","ts":"${new Date(START + 60_000 + i).toISOString()}"}}`,
        );
        i++;
      }
      process.send?.({ sent: deltas });
    };
    pump();
  }
});
