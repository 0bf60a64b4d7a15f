/**
 * An in-process LRU of serialized responses, bounded by bytes: a Map in recency order (oldest first),
 * entries evicted from the front until the total fits. Entries expire after their own deadline too.
 */

export interface CachedResponse {
  /** The serialized body, exactly as sent. */
  body: Buffer;
  contentType: string;
  /** Strong ETag of `body` (quoted). */
  etag: string;
}

export interface ResponseLru {
  get(key: string, now: number): CachedResponse | undefined;
  /** Keeps `value` until `expiresAt` unless evicted; an entry above a quarter of the budget is not kept. */
  set(key: string, value: CachedResponse, expiresAt: number): void;
  readonly bytes: number;
  readonly size: number;
}

/** Bytes an entry is charged beyond its body and strings (Map slot, objects). */
const ENTRY_OVERHEAD = 200;

export function createResponseLru(maxBytes: number): ResponseLru {
  const entries = new Map<string, { value: CachedResponse; expiresAt: number; cost: number }>();
  let bytes = 0;

  const costOf = (key: string, v: CachedResponse) =>
    v.body.length + 2 * (key.length + v.contentType.length + v.etag.length) + ENTRY_OVERHEAD;

  function remove(key: string): void {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    bytes -= e.cost;
  }

  return {
    get(key, now) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.expiresAt <= now) {
        remove(key);
        return undefined;
      }
      // Most recently used goes to the back.
      entries.delete(key);
      entries.set(key, e);
      return e.value;
    },
    set(key, value, expiresAt) {
      const cost = costOf(key, value);
      remove(key);
      if (cost > maxBytes / 4) return;
      entries.set(key, { value, expiresAt, cost });
      bytes += cost;
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break;
        remove(oldest);
      }
    },
    get bytes() {
      return bytes;
    },
    get size() {
      return entries.size;
    },
  };
}
