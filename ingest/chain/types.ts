/**
 * What any EVM chain's ingestion reads: raw JSON-RPC logs and headers as the node sends them (hex
 * strings, never reformatted on the hot path).
 */
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
