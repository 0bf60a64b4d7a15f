/**
 * The simulated world's traders: wallets with distinct behaviours, groups of wallets funded by one funder
 * (some of which keep moving collateral among themselves) for connected-wallet clusters, and builders whose
 * bytes32 codes tag v2 orders. Deterministic from the seed. Addresses are made up (keccak of a label);
 * transactions are sent with anvil's auto-impersonation.
 */
import { type Address, getAddress, type Hex, keccak256, toHex } from 'viem';
import { createRng } from './rng.ts';

export const BEHAVIOURS = [
  'market_maker',
  'whale',
  'buy_and_hold',
  'active_trader',
  'degen',
  'contrarian',
  'value_hunter',
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

export interface SimWallet {
  address: Address;
  behaviour: Behaviour;
  /** Cluster id when the wallet belongs to a funded group. */
  cluster: string | null;
  /** Who funded it: the cluster funder, else null (funded by a bridge deposit). */
  funder: Address | null;
  /** Builder code its v2 orders carry, or null. */
  builder: Hex | null;
  /** Initial collateral, USDC.e base units (6 dp). */
  bankroll: bigint;
}

export interface WalletCluster {
  id: string;
  funder: Address;
  members: Address[];
  /** Members keep moving collateral among each other. */
  circulates: boolean;
}

export interface Builder {
  name: string;
  /** bytes32 builder code. */
  code: Hex;
}

export interface WalletSet {
  wallets: SimWallet[];
  clusters: WalletCluster[];
  builders: Builder[];
  byAddress: Map<string, SimWallet>;
  byBehaviour: Record<Behaviour, SimWallet[]>;
}

const USDC = 1_000_000n;

const BUILDER_NAMES = ['polyterm', 'betbot', 'oddsdesk', 'swiftclob', 'edgeapp'];

/** Share of each behaviour among traders (market makers are sized separately). */
const MIX: [Behaviour, number][] = [
  ['whale', 0.06],
  ['buy_and_hold', 0.2],
  ['active_trader', 0.28],
  ['degen', 0.16],
  ['contrarian', 0.14],
  ['value_hunter', 0.16],
];

const BANKROLL: Record<Behaviour, [number, number]> = {
  market_maker: [200_000, 800_000],
  whale: [150_000, 600_000],
  buy_and_hold: [2_000, 30_000],
  active_trader: [3_000, 40_000],
  degen: [500, 8_000],
  contrarian: [2_000, 25_000],
  value_hunter: [2_000, 25_000],
};

export function walletAddress(seed: string, label: string): Address {
  return getAddress(`0x${keccak256(toHex(`pmdata-sim-wallet:${seed}:${label}`)).slice(-40)}`);
}

export function builderCode(name: string): Hex {
  return keccak256(toHex(`pmdata-sim-builder:${name}`));
}

export function createWallets(options: {
  seed: string | number;
  count: number;
  marketMakers?: number;
}): WalletSet {
  const seed = String(options.seed);
  const rng = createRng(`wallets:${seed}`);
  const builders = BUILDER_NAMES.map((name) => ({ name, code: builderCode(name) }));
  const mmCount = options.marketMakers ?? Math.max(3, Math.round(options.count * 0.08));
  const wallets: SimWallet[] = [];
  const make = (behaviour: Behaviour, i: number): SimWallet => {
    const [lo, hi] = BANKROLL[behaviour];
    const usesBuilder = rng.chance(behaviour === 'market_maker' ? 0.6 : 0.45);
    return {
      address: walletAddress(seed, `${behaviour}-${i}`),
      behaviour,
      cluster: null,
      funder: null,
      builder: usesBuilder ? rng.pick(builders).code : null,
      bankroll: BigInt(rng.int(lo, hi)) * USDC,
    };
  };
  for (let i = 0; i < mmCount; i++) wallets.push(make('market_maker', i));
  const weights = MIX.map(([, w]) => w);
  for (let i = 0; i < options.count - mmCount; i++) {
    const behaviour = (MIX[rng.weightedIndex(weights)] as [Behaviour, number])[0];
    wallets.push(make(behaviour, i));
  }

  // Clusters: about a fifth of the traders, in groups of 3 to 5 funded by one address.
  const traders = rng.shuffle(wallets.filter((w) => w.behaviour !== 'market_maker'));
  const clusters: WalletCluster[] = [];
  let pos = 0;
  const clustered = Math.floor(traders.length * 0.22);
  while (pos + 3 <= clustered) {
    const size = Math.min(rng.int(3, 5), clustered - pos);
    const id = `cluster-${clusters.length}`;
    const funder = walletAddress(seed, `funder-${clusters.length}`);
    const members = traders.slice(pos, pos + size);
    for (const m of members) {
      m.cluster = id;
      m.funder = funder;
    }
    clusters.push({ id, funder, members: members.map((m) => m.address), circulates: rng.chance(0.5) });
    pos += size;
  }

  const byBehaviour = Object.fromEntries(BEHAVIOURS.map((b) => [b, [] as SimWallet[]])) as Record<
    Behaviour,
    SimWallet[]
  >;
  for (const w of wallets) byBehaviour[w.behaviour].push(w);
  return {
    wallets,
    clusters,
    builders,
    byAddress: new Map(wallets.map((w) => [w.address.toLowerCase(), w])),
    byBehaviour,
  };
}
