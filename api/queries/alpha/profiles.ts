/**
 * `GET /v2/alpha/wallets/profiles?addresses=a,b` (SPEC "Wallet profile"; docs/profiles.md): the stored
 * profiles of up to 20 wallets (alpha_wallet_profiles FINAL, written by the `alpha.profiles` job), in the
 * request's order; case and duplicates ignored, wallets without a profile omitted.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { MAX_PROFILE_ADDRESSES, type WalletProfile } from '../../../schemas/api/alpha-profiles.ts';
import {
  ALL_TIME_FIELDS,
  ALPHA_WALLET_PROFILES,
  PROFILE_WINDOWS,
  type PrimaryStyle,
  STYLE_FLAGS,
  WINDOW_FIELDS,
} from '../../../schemas/tables/alpha-profiles.ts';
import { ApiError } from '../../errors.ts';
import { walletOf } from './wallet-pnl.ts';

/** `addresses` → distinct lowercase addresses in first-seen order; the 400s of the endpoint. */
export function parseAddresses(raw: string): string[] {
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new ApiError(400, 'addresses must list at least one address');
  const out = [...new Set(items.map((s) => walletOf(s, 'addresses')))];
  if (out.length > MAX_PROFILE_ADDRESSES) {
    throw new ApiError(
      400,
      `Too many addresses: ${out.length} distinct, at most ${MAX_PROFILE_ADDRESSES} are allowed`,
    );
  }
  return out;
}

/** The columns read, in order: every column of the table but version and deleted. */
const COLUMNS = Object.keys(ALPHA_WALLET_PROFILES.columns).filter((c) => c !== 'version' && c !== 'deleted');
const SELECT = COLUMNS.map((c) =>
  c === 'first_trade_at' || c === 'last_trade_at' || c === 'computed_at' ? `toUnixTimestamp(${c})` : c,
).join(', ');

function toProfile(row: unknown[]): WalletProfile {
  const r = Object.fromEntries(COLUMNS.map((c, i) => [c, row[i]]));
  const num = (c: string) => Number(r[c]);
  const metrics = {} as Record<string, Record<string, number>>;
  for (const w of PROFILE_WINDOWS) {
    const m: Record<string, number> = {};
    for (const f of Object.keys(WINDOW_FIELDS)) m[f] = num(`${w.prefix}${f}`);
    m.fees_refunded = 0;
    if (w.name === 'all_time') for (const f of Object.keys(ALL_TIME_FIELDS)) m[f] = num(`${w.prefix}${f}`);
    metrics[w.name] = m;
  }
  const styles = Object.fromEntries(STYLE_FLAGS.map((f) => [f, Boolean(r[f])])) as Record<
    (typeof STYLE_FLAGS)[number],
    boolean
  >;
  const time = (c: string) => (r[c] === null ? null : Number(r[c]));
  return {
    user: String(r.wallet),
    metrics: metrics as unknown as WalletProfile['metrics'],
    trading_styles: { ...styles, primary_style: r.primary_style as PrimaryStyle },
    entry_edge: num('entry_edge'),
    unrealized_pnl: num('unrealized_pnl'),
    total_pnl: num('total_pnl'),
    first_trade_at: time('first_trade_at'),
    last_trade_at: time('last_trade_at'),
    computed_at: num('computed_at'),
  };
}

export async function alphaWalletProfiles(ch: ClickHouse, rawAddresses: string): Promise<WalletProfile[]> {
  const wallets = parseAddresses(rawAddresses);
  const rows = await ch.read<unknown[]>(
    'api.alpha.wallet_profiles',
    `SELECT ${SELECT} FROM alpha_wallet_profiles FINAL WHERE wallet IN {wallets:Array(String)}`,
    { wallets },
  );
  const byWallet = new Map(rows.map((row) => [String(row[0]), toProfile(row)]));
  return wallets.flatMap((w) => byWallet.get(w) ?? []);
}
