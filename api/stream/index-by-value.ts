/**
 * The process's in-memory subscription index: per channel, filter key and value, the subscriptions
 * that name it, plus each channel's wildcard subscriptions. A message costs one lookup per value it
 * carries and one step per matching subscription, whatever the number of connections.
 */
import type { StreamEvent } from './events.ts';
import type { Filter } from './protocol.ts';

export interface IndexedSubscription {
  channel: string;
  filter: Filter;
}

/** Values of channels with a platform (crypto_prices) are indexed under `<platform>|<value>`. */
const valueKey = (platform: string | undefined, v: string) =>
  platform === undefined ? v : `${platform}|${v}`;

export function createSubscriptionIndex<S extends IndexedSubscription>() {
  const byValue = new Map<string, Map<string, Map<string, Set<S>>>>();
  const wildcards = new Map<string, Set<S>>();
  let size = 0;

  /** The value of `key` in `map`, created empty when missing. */
  function at<K, V>(map: Map<K, V>, key: K, make: () => V): V {
    let v = map.get(key);
    if (v === undefined) {
      v = make();
      map.set(key, v);
    }
    return v;
  }

  function add(s: S): void {
    size++;
    const { channel, filter } = s;
    if (filter.wildcard) {
      at(wildcards, channel, () => new Set<S>()).add(s);
      return;
    }
    const keys = at(byValue, channel, () => new Map<string, Map<string, Set<S>>>());
    const values = at(keys, filter.key, () => new Map<string, Set<S>>());
    for (const v of filter.values) {
      const k = valueKey(filter.platform, v);
      at(values, k, () => new Set<S>()).add(s);
    }
  }

  function remove(s: S): void {
    size--;
    const { channel, filter } = s;
    if (filter.wildcard) {
      wildcards.get(channel)?.delete(s);
      return;
    }
    const values = byValue.get(channel)?.get(filter.key);
    if (!values) return;
    for (const v of filter.values) {
      const k = valueKey(filter.platform, v);
      const set = values.get(k);
      set?.delete(s);
      if (set?.size === 0) values.delete(k);
    }
  }

  /**
   * Whether an event reaches a subscription: its platform's (channels with a platform), else by status
   * (a pending channel's `status`; other channels' filters are `confirmed`).
   */
  function wants(s: S, e: StreamEvent): boolean {
    if (s.filter.platform !== undefined) return s.filter.platform === e.platform;
    switch (s.filter.status) {
      case 'confirmed':
        return e.status === 'confirmed';
      case 'pending':
        return e.status !== 'confirmed';
      default:
        return true;
    }
  }

  /** The subscriptions an event reaches, each once. */
  function match(e: StreamEvent): S[] {
    const out: S[] = [];
    const seen = new Set<S>();
    const take = (set: Set<S> | undefined) => {
      if (!set) return;
      for (const s of set) {
        if (seen.has(s) || !wants(s, e)) continue;
        seen.add(s);
        out.push(s);
      }
    };
    take(wildcards.get(e.channel));
    const keys = byValue.get(e.channel);
    if (keys) {
      for (const [key, values] of Object.entries(e.keys)) {
        const index = keys.get(key);
        if (!index) continue;
        for (const v of values) if (v !== null) take(index.get(valueKey(e.platform, v)));
      }
    }
    return out;
  }

  return { add, remove, match, size: () => size };
}

export type SubscriptionIndex<S extends IndexedSubscription> = ReturnType<typeof createSubscriptionIndex<S>>;
