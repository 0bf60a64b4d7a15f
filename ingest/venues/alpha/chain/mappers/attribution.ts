/**
 * Who acted, when a collateral adapter stands between the user and the CTF (docs/chain-ingestion.md):
 * the CTF sees the adapter as stakeholder, and the user only shows up as the adapter's counterparty in the
 * ERC-1155 transfers (or the pUSD wrap/unwrap) of the same transaction. `TxContext` indexes a
 * transaction's transfers lazily; `attribute` names the user behind an activity event.
 */
import { ZERO_ADDRESS } from '../../../../chain/hex.ts';
import type { U64 } from '../../../../chain/types.ts';
import type { ActivityRow } from '../rows.ts';
import { type Decoded, type MapContext, toU64 } from './context.ts';

/**
 * What attribution reads of a transaction: its CTF transfers and its pUSD movements, in log order, as
 * the direct lane reads them from the page's bytes (`readTransfer`, `readPusd`).
 */
export interface TxTransfers {
  readonly transfers: { logIndex: number; from: string; to: string; ids: string[]; values: U64[] }[];
  readonly pusd: { kind: string; from: string; to: string }[];
}

/** The logs of one transaction, indexed for attribution. */
export class TxContext implements TxTransfers {
  readonly transfers: TxTransfers['transfers'] = [];
  readonly pusd: TxTransfers['pusd'] = [];
  private readonly used = new Set<number>();
  /** Per adapter and side: the transfers naming it there, with the user on the other side, in log order. */
  private readonly candidates = new Map<string, { index: number; user: string; logIndex: number }[]>();

  private indexed = 0;

  /**
   * Reading the logs a question needs waits for the first such question: most transactions never ask
   * one, and most that do ask only about ERC-1155 transfers. `read` adds the transfers (what 1) or the
   * pUSD movements (what 2).
   */
  constructor(private readonly read: (into: TxTransfers, what: 1 | 2) => void) {}

  private index(what: 1 | 2 = 1): void {
    if (this.indexed & what) return;
    this.indexed |= what;
    this.read(this, what);
  }

  /**
   * The adapter's counterparty in ERC-1155 transfers, nearest to the event, each transfer used once:
   * among the unused transfers with the adapter on the given side, one of `tokenIds` first (any when
   * the set is empty), then the smallest log-index distance, then the earlier transfer.
   *
   * The candidates of an (adapter, side) are listed once per transaction in log order and searched
   * outwards from the event, so a transaction of many splits through an adapter costs a few steps per
   * split instead of a pass over all its transfers.
   */
  erc1155Counterparty(
    adapter: string,
    fromAdapter: boolean,
    tokenIds: Set<string>,
    logIndex: number,
  ): string | undefined {
    this.index();
    const key = `${fromAdapter ? '>' : '<'}${adapter}`;
    let list = this.candidates.get(key);
    if (!list) {
      list = [];
      for (let i = 0; i < this.transfers.length; i++) {
        const t = this.transfers[i]!;
        const user = fromAdapter
          ? t.from === adapter
            ? t.to
            : undefined
          : t.to === adapter
            ? t.from
            : undefined;
        if (user === undefined || user === ZERO_ADDRESS || user === adapter) continue;
        list.push({ index: i, user, logIndex: t.logIndex });
      }
      this.candidates.set(key, list);
    }
    if (list.length === 0) return undefined;
    const matches = (c: { index: number }) =>
      tokenIds.size === 0 || this.transfers[c.index]!.ids.some((id) => tokenIds.has(id));
    // First candidate after the event (transfers are in log order, so the list is sorted by log index).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.logIndex < logIndex) lo = mid + 1;
      else hi = mid;
    }
    // Outwards by distance, the earlier side first on a tie: the first unused match is the answer; the
    // nearest unused candidate is the answer when none matches.
    let left = lo - 1;
    let right = lo;
    let nearest: { index: number; user: string } | undefined;
    while (left >= 0 || right < list.length) {
      let c: { index: number; user: string; logIndex: number };
      if (
        right >= list.length ||
        (left >= 0 && logIndex - list[left]!.logIndex <= list[right]!.logIndex - logIndex)
      ) {
        c = list[left--]!;
      } else c = list[right++]!;
      if (this.used.has(c.index)) continue;
      if (matches(c)) {
        this.used.add(c.index);
        return c.user;
      }
      nearest ??= c;
    }
    if (!nearest) return undefined;
    this.used.add(nearest.index);
    return nearest.user;
  }

  /** Outcome shares of `tokenIds` burned from `holder` in this transaction. */
  burned(holder: string, tokenIds: Set<string>): U64 {
    this.index();
    let total = 0n;
    for (const t of this.transfers) {
      if (t.from !== holder || t.to !== ZERO_ADDRESS) continue;
      for (let i = 0; i < t.ids.length; i++) if (tokenIds.has(t.ids[i]!)) total += BigInt(t.values[i]!);
    }
    return toU64(total.toString());
  }

  /** The adapter's counterparty in pUSD: who paid pUSD in (split), or who got pUSD out (merge, redeem). */
  pUsdCounterparty(adapter: string, fromAdapter: boolean): string | undefined {
    this.index(2);
    for (const m of this.pusd) {
      if (fromAdapter && m.kind === 'transfer' && m.to === adapter && m.from !== ZERO_ADDRESS) return m.from;
      if (!fromAdapter && m.kind === 'Wrapped' && m.to !== adapter && m.to !== ZERO_ADDRESS) return m.to;
      if (!fromAdapter && m.kind === 'transfer' && m.from === adapter && m.to !== ZERO_ADDRESS) return m.to;
    }
    return undefined;
  }
}

/**
 * The real user behind an activity event. A plain stakeholder is the user. A collateral adapter's
 * user is its counterparty in the tx's ERC-1155 transfers of the condition's tokens (adapter → user
 * after a split; user → adapter before merge, redeem and convert), else in its pUSD movements.
 * Returns undefined when the counterparty is an exchange (an exchange mint/merge, i.e. a trade).
 */
export function attribute(
  ctx: MapContext,
  tx: TxContext,
  d: Decoded,
  stakeholder: string,
  type: ActivityRow['type'],
  tokenIds: () => Set<string>,
): string | undefined {
  if (!ctx.collateralAdapters.has(stakeholder)) return stakeholder;
  const fromAdapter = type === 'SPLIT';
  const user =
    tx.erc1155Counterparty(stakeholder, fromAdapter, tokenIds(), d.key.log_index) ??
    tx.pUsdCounterparty(stakeholder, fromAdapter);
  if (user === undefined) return stakeholder;
  return ctx.exchanges.has(user) ? undefined : user;
}
