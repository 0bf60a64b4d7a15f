/**
 * The one place where values become SQL text. `renderParams` replaces the `{name:Type}` placeholders of
 * a statement by literals of the declared type, so the statement needs no server-side parameters. The
 * embedded engine's read path uses it: chDB runs every parameterized statement of a process through
 * one chain, one at a time (see embedded.ts); a statement without parameters runs on its own session.
 *
 * Invariants, each checked by core/clickhouse/literals.test.ts against the engine:
 * - a value is checked against its declared type before anything is rendered; a value that does not
 *   fit, or a type not listed here, is refused (LiteralError), never coerced;
 * - strings are rendered as one quoted literal in which every quote, backslash and control byte is
 *   escaped: the engine reads back exactly the input, whatever it holds;
 * - rendered text is never scanned again, so a value that looks like a placeholder or like SQL stays data;
 * - placeholders inside the statement's own string literals, quoted identifiers and comments are left
 *   alone, as the engine's parser would.
 */
import { PermanentError } from '../errors.ts';

/** A value could not be rendered for its placeholder: a bug of the caller (or of its input checks). */
export class LiteralError extends PermanentError {
  override readonly name = 'LiteralError';
}

const INTEGER_RANGES: Record<string, readonly [bigint, bigint]> = {};
for (const bits of [8, 16, 32, 64, 128, 256]) {
  INTEGER_RANGES[`UInt${bits}`] = [0n, 2n ** BigInt(bits) - 1n];
  INTEGER_RANGES[`Int${bits}`] = [-(2n ** BigInt(bits - 1)), 2n ** BigInt(bits - 1) - 1n];
}

/** In a `u` regex a surrogate pair is one code point: only a lone surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A ClickHouse string literal of `value`, read back by the engine as exactly `value`: backslash and
 * quote escaped, every control byte (U+0000-U+001F, U+007F) as `\xHH` (a raw NUL would end the
 * statement early on its way to the engine). Other characters, astral ones included, stay as they are
 * (the statement is sent as UTF-8). A string with a lone surrogate has no UTF-8 form: refused.
 */
export function stringLiteral(value: string): string {
  if (typeof value !== 'string') throw new LiteralError(`Not a string: ${typeof value}`);
  if (LONE_SURROGATE.test(value)) throw new LiteralError('A string with a lone surrogate has no UTF-8 form');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes are what this escapes
  return `'${value.replace(/[\\'\u0000-\u001f\u007f]/g, (c) => {
    if (c === '\\' || c === "'") return `\\${c}`;
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  })}'`;
}

/** Digits of an integer value within `type`'s range; anything else is refused. */
function integerDigits(value: unknown, type: string): string {
  const range = INTEGER_RANGES[type]!;
  let n: bigint;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^-?[0-9]{1,80}$/.test(value)) n = BigInt(value);
  else throw new LiteralError(`Not an integer for ${type}: ${describe(value)}`);
  if (n < range[0] || n > range[1]) throw new LiteralError(`Out of range for ${type}: ${n}`);
  return n.toString();
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `string of ${value.length} chars`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * A finite number's shortest round-trip decimal (`String`; `-0` kept), which the engine parses back to
 * the same Float64 (checked by literals.test.ts); anything else is refused.
 */
function floatText(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new LiteralError(`Not a finite number for Float64: ${describe(value)}`);
  }
  return Object.is(value, -0) ? '-0' : String(value);
}

/** `Array(T)` → `T`; undefined for any other type. */
function elementType(type: string): string | undefined {
  const m = /^Array\((.+)\)$/.exec(type);
  return m ? m[1] : undefined;
}

/** Whether `type` (normalized: no spaces) is one `literal` renders. */
function known(type: string): boolean {
  if (type === 'String' || type === 'Float64' || type in INTEGER_RANGES) return true;
  const element = elementType(type);
  return element !== undefined && known(element);
}

/**
 * `value` as an SQL expression of exactly `type`, as a server would bind it: a String as a string
 * literal; an integer as `CAST('digits' AS T)` (a bare literal would take the smallest type that
 * holds it, e.g. UInt8 for a UInt64 parameter); a Float64 (a finite JS number) as
 * `CAST('shortest decimal' AS Float64)`; an array as an array of such elements, `CAST([] AS T)`
 * when empty. `type` must be normalized (no spaces).
 */
export function literal(value: unknown, type: string): string {
  if (type === 'String') return stringLiteral(value as string);
  if (type in INTEGER_RANGES) return `CAST('${integerDigits(value, type)}' AS ${type})`;
  if (type === 'Float64') return `CAST('${floatText(value)}' AS Float64)`;
  const element = elementType(type);
  if (element === undefined || !known(element)) throw new LiteralError(`Unsupported parameter type ${type}`);
  if (!Array.isArray(value)) throw new LiteralError(`Not an array for ${type}: ${describe(value)}`);
  if (value.length === 0) return `CAST([] AS ${type})`;
  return `[${value.map((v) => literal(v, element)).join(', ')}]`;
}

/** A placeholder `{name:Type}` (spaces allowed around the parts); its type is checked by `known`. */
const PLACEHOLDER = /^\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/;

/** The opening tag of a heredoc string, `$$` or `$tag$`. */
const HEREDOC = /^\$[A-Za-z0-9_]*\$/;

/**
 * `sql` with each `{name:Type}` placeholder outside its string literals (quoted and heredoc), quoted
 * identifiers and comments (`--`, `# `, nested `/* *\/`) replaced by `literal(params[name], Type)`. A placeholder without a value, or of a type
 * `literal` does not know, is refused. Parameters no placeholder names are ignored.
 */
export function renderParams(sql: string, params: Record<string, unknown> | undefined): string {
  if (!params || !sql.includes('{')) return sql;
  let out = '';
  let from = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') {
      i = quotedEnd(sql, i, c);
    } else if (
      (c === '-' && sql[i + 1] === '-') ||
      (c === '#' && (sql[i + 1] === ' ' || sql[i + 1] === '!'))
    ) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      i = commentEnd(sql, i);
    } else if (c === '$' && HEREDOC.test(sql.slice(i, i + 100))) {
      const tag = HEREDOC.exec(sql.slice(i, i + 100))![0];
      const close = sql.indexOf(tag, i + tag.length);
      i = close < 0 ? sql.length : close + tag.length;
    } else if (c === '{') {
      const m = PLACEHOLDER.exec(sql.slice(i, i + 200));
      if (!m) {
        i++;
        continue;
      }
      const [whole, name, rawType] = m;
      const type = rawType!.replace(/\s+/g, '');
      if (!known(type)) throw new LiteralError(`Unsupported parameter type ${rawType} of {${name}}`);
      if (!Object.hasOwn(params, name!) || params[name!] === undefined) {
        throw new LiteralError(`No value for parameter {${name}:${type}}`);
      }
      out += sql.slice(from, i) + literal(params[name!], type);
      i += whole.length;
      from = i;
    } else {
      i++;
    }
  }
  return out + sql.slice(from);
}

/** Index after the quoted token opened at `start` by `quote` (backslash escapes and doubled quotes). */
function quotedEnd(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === '\\') i += 2;
    else if (c === quote && sql[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return sql.length;
}

/** Index after the `/* ... *\/` comment opened at `start` (the engine's comments nest). */
function commentEnd(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return sql.length;
}
