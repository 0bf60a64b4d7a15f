/**
 * Unrealized P&L of one holding in base units (6 decimals): shares × (price − avg entry price), with shares
 * and the avg price ×1e6 as the positions store them and the price a 0–1 decimal, rounded to the base unit;
 * a holding without a price counts at its avg entry price (0). The one rule of the position endpoints, the
 * wallet P&L and the wallet profiles (docs/positions.md): sums of holdings add these integers.
 */
export function unrealizedBase(
  shares: bigint | string,
  avgPrice: bigint | string,
  price: number | null,
): number {
  if (price === null || !Number.isFinite(price)) return 0;
  const s = BigInt(shares);
  return Math.round(Number(s) * price - Number(s * BigInt(avgPrice)) / 1e6);
}

/**
 * Unrealized P&L as a percentage of the cost basis (docs/positions.md): unrealized ÷ |cost basis| × 100, both
 * in base units as served (cost basis = shares × avg entry price), rounded to 6 decimals; 0 when the cost
 * basis is 0 (no shares, or an avg price of 0). Dividing by the magnitude keeps the sign of the unrealized
 * P&L when the avg price is negative (a neg-risk conversion's yes price).
 */
export function unrealizedPct(unrealized: bigint | number, cost: bigint | number): number {
  const c = Math.abs(Number(cost));
  if (c === 0) return 0;
  return Math.round((Number(unrealized) / c) * 100 * 1e6) / 1e6;
}
