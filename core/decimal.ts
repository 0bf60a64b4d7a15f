/**
 * Exact decimals (order book prices and sizes, docs/orderbooks.md): canonical decimal text and integer
 * arithmetic in millionths (the tables' `Decimal(18, 6)` scale), never floats. Shared by the writers
 * (ingest/orderbooks/) and the readers (api/queries/orderbooks.ts).
 */

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * A decimal's canonical text, exact: no exponent, no leading zeros, no trailing fractional zeros
 * ('0.5000' → '0.5', '012' → '12', '-0' → '0'). A number is taken through its shortest round-trip text.
 * Throws a RangeError on anything else, or on more than 6 decimals (the table's scale).
 */
export function decimal(value: string | number): string {
  let text = typeof value === 'number' ? numberText(value) : value.trim();
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  const int = m[2]!.replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > 6) throw new RangeError(`more than 6 decimals: ${text}`);
  text = frac === '' ? int : `${int}.${frac}`;
  return m[1] === '-' && /[1-9]/.test(text) ? `-${text}` : text;
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a decimal: ${n}`);
  const s = String(n);
  if (!/e/i.test(s)) return s;
  // Exponent forms (1e-7 and below, 1e21 and above): fixed text at the table's scale and beyond.
  return n.toFixed(12);
}

const SCALE = 6;
const ONE = 10n ** BigInt(SCALE);

/** A decimal as an integer of 10⁻⁶ (throws like `decimal` on anything else). */
export function micros(value: string | number): bigint {
  const text = decimal(value);
  const neg = text.startsWith('-');
  const [int, frac = ''] = (neg ? text.slice(1) : text).split('.');
  const n = BigInt(int as string) * ONE + BigInt(frac.padEnd(SCALE, '0'));
  return neg ? -n : n;
}

/** An integer of 10⁻⁶ as canonical decimal text. */
export function fromMicros(n: bigint): string {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const text = `${a / ONE}.${(a % ONE).toString().padStart(SCALE, '0')}`;
  return decimal(neg ? `-${text}` : text);
}
