/**
 * A journal of the calls that change an object (the world state, the ledger), kept as plain JSON so a
 * saved world (sim/saved.ts) rebuilds them by replaying the calls on fresh ones instead of running the
 * history again: the state and the ledger are deterministic functions of their catalog and their calls.
 * Bigints are kept as `{ $bigint: "<decimal>" }`.
 */

/** One call: the method's name and its arguments, JSON-safe. */
export type JournalCall = [method: string, args: unknown[]];

function encode(v: unknown): unknown {
  if (typeof v === 'bigint') return { $bigint: v.toString() };
  if (Array.isArray(v)) return v.map(encode);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, encode(x)]));
  }
  return v;
}

function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.$bigint === 'string' && Object.keys(o).length === 1) return BigInt(o.$bigint);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
  }
  return v;
}

/** `target` with the calls of `methods` appended to `calls` (arguments encoded before the call runs). */
export function journaled<T extends object>(
  target: T,
  methods: readonly (keyof T & string)[],
  calls: JournalCall[],
): T {
  const watched = new Set<string>(methods);
  return new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver);
      if (typeof prop !== 'string' || !watched.has(prop) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push([prop, args.map(encode)]);
        return (value as (...a: unknown[]) => unknown).apply(t, args);
      };
    },
  });
}

/** Replays `calls` on `target`, in order. */
export function replay<T extends object>(target: T, calls: readonly JournalCall[]): void {
  for (const [method, args] of calls) {
    const fn = (target as Record<string, unknown>)[method];
    if (typeof fn !== 'function') throw new Error(`journal: no method ${method} to replay`);
    (fn as (...a: unknown[]) => unknown).apply(target, args.map(decode));
  }
}
