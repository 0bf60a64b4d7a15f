/**
 * Who a collateral adapter's split is attributed to, when one transaction holds several: the adapter's
 * ERC-1155 transfer nearest to the split, one of the split condition's tokens first, the earlier
 * transfer on a tie, each transfer used once, and the nearest unused transfer when no token matches.
 * The logs are built by hand, packed as bytes (`PackedLogs.of`) and mapped by the real mapper, whose
 * direct lane reads the transfers attribution looks at (no node, no store involved).
 */
import {
  type AbiEvent,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
  keccak256,
  parseAbiItem,
  toHex,
} from 'viem';
import { describe, expect, it } from 'vitest';
import { ALPHA_ADDRESS_SETS, ALPHA_ROLES } from '../../../../schemas/abi/alpha-addresses.ts';
import { PackedLogs } from '../../../chain/packed-logs.ts';
import type { BlockHeader, RpcLog } from '../../../chain/types.ts';
import { createDecoderRegistry } from './decoders.ts';
import { createRowMapper } from './mapper.ts';
import { positionIdOf } from './position-ids.ts';
import { createTokenMap } from './token-map.ts';

const ADAPTER = '0xada100874d00e3331d00f2007a9c336a65009718';
const CTF = ALPHA_ROLES.conditionalTokens.toLowerCase();
const BLOCK_HASH = `0x${'cd'.repeat(32)}`;
const TX = `0x${'ef'.repeat(32)}`;

const SPLIT = parseAbiItem(
  'event PositionSplit(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
) as AbiEvent;
const BATCH = parseAbiItem(
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
) as AbiEvent;
const SINGLE = parseAbiItem(
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
) as AbiEvent;

function rawLog(item: AbiEvent, args: Record<string, unknown>, logIndex: number): RpcLog {
  const topics = encodeEventTopics({ abi: [item], eventName: item.name, args: args as never }) as Hex[];
  const nonIndexed = item.inputs.filter((i) => !i.indexed);
  const data = encodeAbiParameters(
    nonIndexed,
    nonIndexed.map((i) => args[i.name!]),
  );
  return {
    address: CTF,
    topics,
    data,
    blockNumber: '0x1',
    blockHash: BLOCK_HASH,
    transactionHash: TX,
    transactionIndex: '0x0',
    logIndex: toHex(logIndex),
    removed: false,
  };
}

const user = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const condition = (n: number) => keccak256(toHex(`condition ${n}`));
const tokensOf = (c: Hex) =>
  [1n, 2n].map((s) => BigInt(positionIdOf('simplified', ALPHA_ROLES.usdcE as Hex, c, s)));

describe('adapter split attribution within one transaction', () => {
  it('takes the nearest transfer of the split tokens, the earlier on a tie, each once, then the nearest unused', async () => {
    const decoders = createDecoderRegistry(ALPHA_ADDRESS_SETS);
    const mapper = createRowMapper(decoders, {
      chainId: 137,
      sets: ALPHA_ADDRESS_SETS,
      roles: ALPHA_ROLES,
      positionIds: 'simplified',
      tokens: createTokenMap({ chainId: 137 }),
    });
    const transfer = (to: number, c: Hex, i: number) =>
      rawLog(
        BATCH,
        { operator: ADAPTER, from: ADAPTER, to: user(to), ids: tokensOf(c), values: [5n, 5n] },
        i,
      );
    const split = (c: Hex, i: number) =>
      rawLog(
        SPLIT,
        {
          stakeholder: ADAPTER,
          collateralToken: ALPHA_ROLES.usdcE,
          parentCollectionId: `0x${'00'.repeat(32)}`,
          conditionId: c,
          partition: [1n, 2n],
          amount: 5n,
        },
        i,
      );
    const logs = [
      transfer(1, condition(1), 0),
      split(condition(1), 1), // C1: user 1 (match, distance 1) before user 2 (no match, distance 1)
      transfer(2, condition(2), 2),
      split(condition(2), 3), // C2: user 2, the only match
      transfer(3, condition(1), 4),
      split(condition(1), 5), // C1: user 1's transfer is used; user 3 (distance 1)
      transfer(4, condition(3), 6),
      split(condition(3), 7), // C3: user 4 and user 5 both at distance 1: the earlier, user 4
      transfer(5, condition(3), 8),
      split(condition(3), 9), // C3: user 5, the one left
      rawLog(SINGLE, { operator: ADAPTER, from: ADAPTER, to: user(6), id: 77n, value: 5n }, 10),
      split(condition(4), 11), // C4: no transfer of its tokens; the nearest unused, user 6
      transfer(7, condition(5), 12),
      rawLog(SINGLE, { operator: ADAPTER, from: user(8), to: ADAPTER, id: 78n, value: 5n }, 13),
      split(condition(6), 14), // C6: no match; user 8's transfer is to the adapter (wrong side): user 7
    ];
    const headers = new Map<number, BlockHeader>([
      [
        1,
        { number: 1, hash: BLOCK_HASH, parentHash: `0x${'00'.repeat(32)}`, timestampMs: 1_700_000_000_000 },
      ],
    ]);
    const mapped = await mapper.mapPage(PackedLogs.of(logs), headers, () => 'confirmed');
    expect(mapped.stats.quarantined).toBe(0);
    const wallets = mapped.rows.alpha_activity
      .filter((r) => r.type === 'SPLIT')
      .sort((a, b) => a.log_index - b.log_index)
      .map((r) => [r.log_index, r.wallet]);
    expect(wallets).toEqual([
      [1, user(1)],
      [3, user(2)],
      [5, user(3)],
      [7, user(4)],
      [9, user(5)],
      [11, user(6)],
      [14, user(7)],
    ]);
  });
});
