/**
 * BRIDGE until h/watermarks is merged (replaced by that branch's file at the merge): the interface of
 * core/watermarks.ts (BRIEF "Shared interfaces"), its REST half only, over `venue_checkpoints` as the REST
 * checkpoints were written before (value = the time in ms as text; beta's `markets` in Unix seconds).
 */
import type { ClickHouse } from './clickhouse/index.ts';

export interface Watermark {
  source: string;
  stream: string;
  kind: 'head' | 'range';
  from?: number;
  to?: number;
  block?: number;
  hash?: string;
  time?: number;
  at: number;
}
export type Mark = Omit<Watermark, 'at'> & { at?: number };
export interface Watermarks {
  read(source: string, stream: string, range?: { from: number; to: number }): Promise<Watermark | null>;
  list(source: string, stream?: string): Promise<Watermark[]>;
  contiguous(source: string): Promise<{ block: number; hash: string; at: number } | null>;
  commit(mark: Mark, write?: () => Promise<void>): Promise<Watermark>;
  forget(source: string, stream?: string, range?: { from: number; to: number }): Promise<void>;
  newest(source: string, stream?: string): Promise<number | null>;
}

const venueOf = (source: string) => (source === 'alpha-catalog' ? 'alpha' : source);
const seconds = (source: string, stream: string) => source === 'beta' && stream === 'markets';
const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

export function createWatermarks(ch: ClickHouse): Watermarks {
  const unsupported = () => {
    throw new Error('core/watermarks.ts bridge: REST head marks only');
  };
  return {
    async read(source, stream) {
      const rows = await ch.query<{ value: string; at: string }>(
        `${venueOf(source)}.checkpoint.read`,
        `SELECT value, toUnixTimestamp64Milli(updated_at) AS at FROM venue_checkpoints FINAL
         WHERE venue = {venue:String} AND stream = {stream:String}`,
        { venue: venueOf(source), stream },
      );
      const r = rows[0];
      if (!r) return null;
      const v = Number(r.value);
      return { source, stream, kind: 'head', time: seconds(source, stream) ? v * 1000 : v, at: Number(r.at) };
    },
    list: unsupported,
    contiguous: unsupported,
    async commit(mark, write) {
      await write?.();
      const at = mark.at ?? Date.now();
      const time = mark.time ?? 0;
      const value = seconds(mark.source, mark.stream) ? Math.floor(time / 1000) : time;
      await ch.insert(`${venueOf(mark.source)}.checkpoint.write`, 'venue_checkpoints', [
        { venue: venueOf(mark.source), stream: mark.stream, value: String(value), updated_at: chTime(at) },
      ]);
      return { ...mark, at };
    },
    forget: unsupported,
    newest: unsupported,
  };
}
