/** Log objects as an `eth_getLogs` result holds them, for the readers' tests. */
import type { RpcLog } from '../../ingest/chain/types.ts';

/** Log `i` of transaction `tx` (one emitter, one block), with `extra` fields over the defaults. */
export function rpcLog(i: number, tx: number, extra: Partial<RpcLog> = {}): RpcLog {
  return {
    address: '0x4d97dcd97ec945f40cf65f87097ace5ea0476045',
    topics: [`0x${i.toString(16).padStart(64, '0')}`],
    data: `0x${(i * 7).toString(16).padStart(64, '0')}`,
    blockNumber: '0x10',
    blockHash: `0x${'ab'.repeat(32)}`,
    transactionHash: `0x${tx.toString(16).padStart(64, '0')}`,
    transactionIndex: `0x${tx.toString(16)}`,
    logIndex: `0x${i.toString(16)}`,
    removed: false,
    ...extra,
  } as RpcLog;
}
