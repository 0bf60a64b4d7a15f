/**
 * `pmdata tail <channel> [--filters JSON]`: a small stream client that subscribes once and prints each
 * event's data as one JSON line (gap messages and errors on stderr). Default filters: the channel's
 * first filter key with the wildcard (`["*"]`, Pro or higher).
 */
import WebSocket from 'ws';
import { STREAM_CHANNELS } from '../../api/stream/channels.ts';
import { filterKeysOf } from '../../api/stream/protocol.ts';
import { PermanentError } from '../../core/errors.ts';

export const TAIL_USAGE = `Usage: pmdata tail <channel> --key <API key> [--filters JSON] [--url ws://host:port]
                   [--platform P] [--count N]
Channels: ${[...STREAM_CHANNELS.keys()].join(', ')}
Examples:
  pmdata tail trades --key pmd_… --filters '{"users":["0xabc…"],"status":"all"}'
  pmdata tail crypto_prices --key pmd_… --platform chainlink --filters '{"feeds":["BTC/USD"]}'`;

export interface TailOptions {
  channel: string;
  key: string;
  url: string;
  filters?: string;
  platform?: string;
  /** Stop after this many events (default: run until interrupted). */
  count?: number;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

export function runTail(o: TailOptions): Promise<number> {
  const out = o.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = o.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const channel = STREAM_CHANNELS.get(o.channel);
  if (!channel)
    throw new PermanentError(
      `Unknown channel "${o.channel}": one of ${[...STREAM_CHANNELS.keys()].join(', ')}`,
    );
  const keys = filterKeysOf(channel);
  let filters: unknown;
  try {
    filters = o.filters ? JSON.parse(o.filters) : { [keys[0]!]: ['*'] };
  } catch {
    throw new PermanentError(`--filters: not valid JSON: ${o.filters}`);
  }
  const subscribe: Record<string, unknown> = { action: 'subscribe', channel: o.channel, filters, id: 'tail' };
  if (channel.platform)
    Object.assign(subscribe, { type: channel.platform.type, platform: o.platform ?? 'chainlink' });
  return new Promise((resolve) => {
    const ws = new WebSocket(`${o.url.replace(/\/+$/, '')}/v1/${encodeURIComponent(o.key)}`);
    let events = 0;
    const stop = () => ws.close(1000);
    process.once('SIGINT', stop);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => {
        err(`pmdata tail: HTTP ${res.statusCode} ${body}`);
        resolve(1);
      });
    });
    ws.on('error', (e) => {
      if (!String(e.message).includes('Unexpected server response')) {
        err(`pmdata tail: ${e.message}`);
        resolve(1);
      }
    });
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as Record<string, unknown>;
      switch (m.type) {
        case 'connected':
          ws.send(JSON.stringify(subscribe));
          return;
        case 'subscribed':
          err(`subscribed ${m.subscription_id} to ${m.channel} ${JSON.stringify(filters)}`);
          return;
        case 'event':
          out(JSON.stringify({ seq: m.seq, ...(m.data as object) }));
          if (o.count !== undefined && ++events >= o.count) stop();
          return;
        case 'error':
          err(`error ${m.code}: ${m.message}`);
          if (m.id === 'tail') stop();
          return;
        default:
          err(JSON.stringify(m));
      }
    });
    ws.on('close', (code, reason) => {
      process.removeListener('SIGINT', stop);
      if (code !== 1000 && code !== 1005) err(`closed ${code} ${reason.toString()}`);
      resolve(code === 1000 || code === 1005 ? 0 : 1);
    });
  });
}
