/** Value formatting shared by the replicas. */

/** ISO 8601 with milliseconds, UTC: 2026-04-01T12:00:00.000Z. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** ISO 8601 without milliseconds: 2026-04-01T12:00:00Z. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Postgres-style timestamp alpha's metadata API uses in some fields: 2026-04-01 12:00:00+00. */
export function pgTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('T', ' ').replace('.000Z', '+00');
}

export function unixS(ms: number): number {
  return Math.floor(ms / 1000);
}

/** Decimal string without float noise (up to `dp` places, trailing zeros trimmed). */
export function dec(x: number, dp = 6): string {
  const s = x.toFixed(dp);
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** A number rounded to `dp` places (for JSON numbers). */
export function num(x: number, dp = 6): number {
  return Number(x.toFixed(dp));
}

/** Fixed-point dollars, 4 dp: "0.5600". */
export function dollars(x: number): string {
  return x.toFixed(4);
}

/** Fixed-point count, 2 dp: "13.00". */
export function fpCount(x: number): string {
  return x.toFixed(2);
}

/** Integer cents from a 0..1 price. */
export function cents(p: number): number {
  return Math.round(p * 100);
}

/** Parses a time given either as Unix seconds or as an ISO date string; undefined when absent. */
export function parseTime(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : undefined;
}
