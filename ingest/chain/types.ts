/**
 * What any EVM chain's ingestion reads: raw JSON-RPC logs and headers as the node sends them (hex
 * strings, never reformatted on the hot path).
 */
import type { RowOf } from '../../core/clickhouse/table.ts';
import type { QUARANTINE } from '../../schemas/tables/alpha-chain.ts';

export type { U64 } from '../../core/clickhouse/row-binary.ts';

/** A log exactly as `eth_getLogs` returns it. */
export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed?: boolean;
  blockTimestamp?: string;
}

/** The header fields the pipeline keeps. */
export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  /** Unix milliseconds. */
  timestampMs: number;
}

/** A row's finality: pending until the block is `finalityDepth` below the head, then confirmed. */
export type Status = 'pending' | 'confirmed';

/** A record that could not be mapped, with its reason (the quarantine table, shared by every source). */
export type QuarantineRow = RowOf<typeof QUARANTINE>;

/** What mapping one page of logs came to (summed over pages and ranges). */
export interface MapStats {
  logs: number;
  decoded: number;
  ignored: number;
  quarantined: number;
  /** Events deliberately not turned into rows of their own (counted, not quarantined). */
  skipped: number;
}
