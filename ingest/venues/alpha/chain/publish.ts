/**
 * Publication of alpha rows on Redis pub/sub for the streaming service. The Redis channel of each table
 * and the message are declared in schemas/stream.ts (PUBLICATIONS, StreamMessage): `<prefix>alpha:trades`
 * (fills), `alpha:activity`, `alpha:lifecycle`, `alpha:collateral`, `alpha:oracle`. Each message is one row:
 *   { "channel": "trades", "event": "order_filled", "status": "pending"|"confirmed"|"removed",
 *     "chain_id": 137, "published_at": <Unix ms>, "data": { ...the row as stored, block_time in Unix ms } }
 * `removed` is sent for rows a reorg orphaned; a row that becomes confirmed is sent again with
 * `confirmed`. Documented in docs/chain-ingestion.md.
 */
import type { Redis } from 'ioredis';
import {
  type PublishStatus,
  type StreamMessage,
  TABLE_PUBLICATIONS,
  type TablePublication,
} from '../../../../schemas/stream.ts';
import { EVENT_TABLES, type EventTable, type RowSet } from './rows.ts';

export type { PublishStatus };

/** The publications of alpha's event tables (schemas/stream.ts), in publishing order. */
const PUBLISHED = TABLE_PUBLICATIONS.filter((p): p is TablePublication & { table: EventTable } =>
  (EVENT_TABLES as readonly string[]).includes(p.table),
);

const ACTIVITY_EVENTS: Record<string, string> = {
  SPLIT: 'split',
  MERGE: 'merge',
  REDEEM: 'redeem',
  CONVERT: 'conversion',
};

function eventName(table: EventTable, row: Record<string, unknown>): string {
  switch (table) {
    case 'alpha_fills':
      return 'order_filled';
    case 'alpha_activity':
      return ACTIVITY_EVENTS[String(row.type)] ?? String(row.type).toLowerCase();
    default:
      return String(row.kind);
  }
}

export interface Publisher {
  /** The tables whose rows are published (their publications in schemas/stream.ts). */
  readonly tables: readonly EventTable[];
  /** Publishes rows of published tables; `status` overrides each row's own status (confirmed/removed). */
  publish(rows: Partial<RowSet>, status?: PublishStatus): Promise<number>;
  readonly prefix: string;
}

export function createPublisher(redis: Redis, opts: { prefix?: string; chainId: number }): Publisher {
  const prefix = opts.prefix ?? 'pmdata:';
  return {
    prefix,
    tables: PUBLISHED.map((p) => p.table),
    async publish(rows, status) {
      let n = 0;
      let pipeline = redis.pipeline();
      let queued = 0;
      const publishedAt = Date.now();
      for (const { channel, table, redis: suffix } of PUBLISHED) {
        const list = rows[table] as Record<string, unknown>[] | undefined;
        if (!list) continue;
        for (const row of list) {
          const message: StreamMessage = {
            channel,
            event: eventName(table, row),
            status: status ?? (row.status as PublishStatus),
            chain_id: opts.chainId,
            published_at: publishedAt,
            data: row,
          };
          pipeline.publish(`${prefix}${suffix}`, JSON.stringify(message));
          n++;
          if (++queued >= 1000) {
            await pipeline.exec();
            pipeline = redis.pipeline();
            queued = 0;
          }
        }
      }
      if (queued > 0) await pipeline.exec();
      return n;
    },
  };
}
