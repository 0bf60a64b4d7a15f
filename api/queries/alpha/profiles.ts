/**
 * `GET /v2/alpha/wallets/profiles?addresses=a,b` (SPEC "Wallet profile"; docs/profiles.md): the stored
 * profiles of up to 20 wallets (alpha_wallet_profiles FINAL, written by the `alpha.profiles` job), in the
 * request's order; case and duplicates ignored, wallets without a profile omitted.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import {
  type ColumnName,
  expression,
  type Named,
  type RowOfSelection,
  select,
} from '../../../core/clickhouse/table.ts';
import { MAX_PROFILE_ADDRESSES, type WalletProfile } from '../../../schemas/api/alpha-profiles.ts';
import {
  ALL_TIME_FIELDS,
  ALPHA_WALLET_PROFILES,
  type AllTimeField,
  PROFILE_WINDOWS,
  STYLE_FLAGS,
  type StyleFlag,
  WINDOW_FIELDS,
  type WindowField,
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

/** The times, read as Unix seconds. */
const TIMES = ['first_trade_at', 'last_trade_at', 'computed_at'] as const;
type Time = (typeof TIMES)[number];
type Read =
  | Exclude<ColumnName<typeof ALPHA_WALLET_PROFILES>, 'version' | 'deleted' | Time>
  | Named<'first_trade_at' | 'last_trade_at', number | null>
  | Named<'computed_at', number>;

/** What is read, in order: every column of the table but version and deleted (times as Unix seconds). */
const PROFILE_SELECTION = select(
  ALPHA_WALLET_PROFILES,
  Object.keys(ALPHA_WALLET_PROFILES.columns)
    .filter((c) => c !== 'version' && c !== 'deleted')
    .map((c) =>
      (TIMES as readonly string[]).includes(c) ? expression(`toUnixTimestamp(${c})`).as(c) : c,
    ) as Read[],
);

type ProfileRow = RowOfSelection<typeof PROFILE_SELECTION>;

/** A stored profile → the WalletProfile of `GET /v2/alpha/wallets/profiles`. */
export function toProfile(r: ProfileRow): WalletProfile {
  const metrics = {} as Record<string, Record<string, number>>;
  for (const w of PROFILE_WINDOWS) {
    const m: Record<string, number> = {};
    for (const f of Object.keys(WINDOW_FIELDS) as WindowField[]) m[f] = Number(r[`${w.prefix}${f}`]);
    m.fees_refunded = 0;
    if (w.name === 'all_time') {
      for (const f of Object.keys(ALL_TIME_FIELDS) as AllTimeField[]) m[f] = Number(r[`${w.prefix}${f}`]);
    }
    metrics[w.name] = m;
  }
  const styles = Object.fromEntries(STYLE_FLAGS.map((f) => [f, Boolean(r[f])])) as Record<StyleFlag, boolean>;
  const time = (v: number | null) => (v === null ? null : Number(v));
  return {
    user: String(r.wallet),
    metrics: metrics as unknown as WalletProfile['metrics'],
    trading_styles: { ...styles, primary_style: r.primary_style },
    entry_edge: Number(r.entry_edge),
    unrealized_pnl: Number(r.unrealized_pnl),
    total_pnl: Number(r.total_pnl),
    first_trade_at: time(r.first_trade_at),
    last_trade_at: time(r.last_trade_at),
    computed_at: Number(r.computed_at),
  };
}

export async function alphaWalletProfiles(ch: ClickHouse, rawAddresses: string): Promise<WalletProfile[]> {
  const wallets = parseAddresses(rawAddresses);
  const rows = (
    await ch.read(
      'api.alpha.wallet_profiles',
      `SELECT ${PROFILE_SELECTION.sql} FROM alpha_wallet_profiles FINAL WHERE wallet IN {wallets:Array(String)}`,
      { wallets },
    )
  ).map(PROFILE_SELECTION.zip);
  const byWallet = new Map(rows.map((r) => [String(r.wallet), toProfile(r)]));
  return wallets.flatMap((w) => byWallet.get(w) ?? []);
}
