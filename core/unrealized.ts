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
