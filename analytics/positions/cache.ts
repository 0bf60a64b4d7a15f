/**
 * The positions a run holds in memory, by wallet then token (no per-position key string), with the
 * strings its states share interned: one copy of each wallet, token and condition id however many
 * positions name it, and one copy of each block hash (interned per batch). At a million positions this
 * is the difference between a few hundred bytes and about a kilobyte per position.
 */
import type { PositionState } from './accounting.ts';

export interface PositionCache {
  get(wallet: string, tokenId: string): PositionState | undefined;
  set(p: PositionState): void;
  has(wallet: string, tokenId: string): boolean;
  readonly size: number;
  clear(): void;
  /** The interned copy of a wallet, token or condition id. */
  intern(s: string): string;
  /** Interns the strings of a state (and its block hash, per batch) before it is kept. */
  adopt(p: PositionState): PositionState;
  /** Starts a batch: block hashes interned from here on are the batch's. */
  nextBatch(): void;
}

export function createPositionCache(): PositionCache {
  const byWallet = new Map<string, Map<string, PositionState>>();
  const ids = new Map<string, string>();
  let hashes = new Map<string, string>();
  let size = 0;
  const intern = (s: string) => {
    const known = ids.get(s);
    if (known !== undefined) return known;
    ids.set(s, s);
    return s;
  };
  const adopt = (p: PositionState) => {
    p.wallet = intern(p.wallet);
    p.tokenId = intern(p.tokenId);
    p.conditionId = intern(p.conditionId);
    const h = hashes.get(p.lastBlockHash);
    if (h === undefined) hashes.set(p.lastBlockHash, p.lastBlockHash);
    else p.lastBlockHash = h;
    return p;
  };
  return {
    get: (wallet, tokenId) => byWallet.get(wallet)?.get(tokenId),
    has: (wallet, tokenId) => byWallet.get(wallet)?.has(tokenId) ?? false,
    set(p) {
      adopt(p);
      let tokens = byWallet.get(p.wallet);
      if (!tokens) {
        tokens = new Map();
        byWallet.set(p.wallet, tokens);
      }
      if (!tokens.has(p.tokenId)) size++;
      tokens.set(p.tokenId, p);
    },
    get size() {
      return size;
    },
    clear() {
      byWallet.clear();
      ids.clear();
      hashes.clear();
      size = 0;
    },
    intern,
    adopt,
    nextBatch() {
      hashes = new Map();
    },
  };
}
