/**
 * Value helpers of the venue lists' row → resource mappings (schemas/api/<code>-markets.ts): a row's
 * values as read from its `doc` JSON array (numbers, decimal strings for 64-bit integers, nulls).
 */

/** Unix ms (as read: a number, a decimal string or null) → ISO 8601, or null. */
export function isoFromMs(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const ms = Number(v);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** A nullable number as read (Float64 may arrive as a number; 64-bit integers as strings). */
export function numOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const x = Number(v);
  return Number.isFinite(x) ? x : null;
}

export const num = (v: unknown): number => numOrNull(v) ?? 0;
