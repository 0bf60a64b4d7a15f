/**
 * Fault injection for the venue replicas, configurable at runtime per server.
 *
 * Two ways to inject, both deterministic:
 * - a queue: `enqueue('beta', { kind: 'rate_limit' }, { kind: 'server_error' })` gives the next matching
 *   requests those faults, in order (a fault with `path` only matches requests whose path starts with it);
 * - rates: `set('beta', { rate429: 0.2 })` draws from a seeded rng once per request, so the same request
 *   sequence gets the same faults.
 * The queue is consulted first. `clear()` removes both.
 *
 * A WebSocket (beta's `/trade-api/ws/v2`, sim/venues/beta/socket.ts) draws once per data message it sends,
 * with `channel: 'socket'`: only the socket kinds (`drop_message`, `disconnect`) are drawn there, and only
 * the HTTP kinds by requests, from separate rng streams, so a socket running beside a REST test changes
 * none of its faults.
 */
import { createRng, type Rng } from '../world/rng.ts';

export const REPLICA_NAMES = ['alpha_metadata', 'alpha_book', 'beta', 'gamma', 'delta', 'epsilon'] as const;
export type ReplicaName = (typeof REPLICA_NAMES)[number];

/** Faults of a WebSocket's data messages. */
export type SocketFaultKind =
  /** The message is not sent (its seq is used: the client sees a gap). */
  | 'drop_message'
  /** The socket is closed abruptly instead of sending the message. */
  | 'disconnect';

export const SOCKET_FAULT_KINDS: readonly SocketFaultKind[] = ['drop_message', 'disconnect'];

/** Faults of HTTP requests. */
export type FaultKind =
  /** 429 with a Retry-After header. */
  | 'rate_limit'
  /** A 5xx (default 503). */
  | 'server_error'
  /** No response: the socket stays open until the client gives up (or `delayMs` passes, then a normal answer). */
  | 'hang'
  /** One record of the page violates its schema (a field of the wrong type). */
  | 'malformed'
  /** A paged endpoint returns the previous page's records again (the cursor still advances). */
  | 'duplicate_page'
  /** A paged endpoint starts half a page early, overlapping the previous page. */
  | 'overlap_page'
  /** A paged endpoint starts half a page late: the records in between are skipped (the cursor advances as usual). */
  | 'skip_page';

export interface Fault {
  kind: FaultKind | SocketFaultKind;
  /** Only requests whose path starts with this (e.g. '/markets'). */
  path?: string;
  /** server_error: HTTP status (default 503). */
  status?: number;
  /** rate_limit: Retry-After seconds (default 1). */
  retryAfterS?: number;
  /** hang: answer normally after this many ms; absent = never answer. */
  delayMs?: number;
}

export interface FaultRates {
  rate429?: number;
  rate5xx?: number;
  rateHang?: number;
  rateMalformed?: number;
  rateDuplicatePage?: number;
  rateOverlapPage?: number;
  rateSkipPage?: number;
  /** A socket's data messages: the share dropped, and the share that close the socket instead. */
  rateDropMessage?: number;
  rateDisconnect?: number;
  /** Only requests whose path starts with this. */
  path?: string;
  retryAfterS?: number;
  status?: number;
  hangMs?: number;
}

export interface FaultController {
  /** Replaces the rates of a server ({} or clear() turns them off). */
  set(server: ReplicaName, rates: FaultRates): void;
  /** Appends faults for the next matching requests of a server. */
  enqueue(server: ReplicaName, ...faults: Fault[]): void;
  /** Removes queued faults and rates of one server, or of all. */
  clear(server?: ReplicaName): void;
  /**
   * The fault for this request, if any (called by the servers once per request), or with
   * `channel: 'socket'` for a WebSocket's data message (once per message).
   */
  draw(server: ReplicaName, path: string, channel?: 'http' | 'socket'): Fault | null;
  /** HTTP faults injected so far, per kind. */
  injected(server: ReplicaName): Record<FaultKind, number>;
  /** Socket faults injected so far, per kind. */
  injectedSocket(server: ReplicaName): Record<SocketFaultKind, number>;
  /** Requests seen so far (HTTP requests; socket messages are not counted). */
  requests(server: ReplicaName): number;
}

function emptyCounts(): Record<FaultKind | SocketFaultKind, number> {
  return {
    rate_limit: 0,
    server_error: 0,
    hang: 0,
    malformed: 0,
    duplicate_page: 0,
    overlap_page: 0,
    skip_page: 0,
    drop_message: 0,
    disconnect: 0,
  };
}

export function createFaultController(seed: string): FaultController {
  const queues = new Map<ReplicaName, Fault[]>();
  const rates = new Map<ReplicaName, { rates: FaultRates; rng: Rng; socketRng: Rng }>();
  const counts = new Map<ReplicaName, ReturnType<typeof emptyCounts>>();
  const isSocketKind = (k: Fault['kind']) => (SOCKET_FAULT_KINDS as readonly string[]).includes(k);
  const seen = new Map<ReplicaName, number>();

  const count = (server: ReplicaName, fault: Fault | null): Fault | null => {
    if (fault) {
      const c = counts.get(server) ?? emptyCounts();
      c[fault.kind]++;
      counts.set(server, c);
    }
    return fault;
  };

  return {
    set(server, r) {
      // Each set() restarts a draw sequence seeded by the rates: the same rates give the same faults to the
      // same sequence of requests, whatever ran before.
      rates.set(server, {
        rates: { ...r },
        rng: createRng(`${seed}|faults|${server}|${JSON.stringify(r)}`),
        socketRng: createRng(`${seed}|faults|${server}|socket|${JSON.stringify(r)}`),
      });
    },
    enqueue(server, ...faults) {
      const q = queues.get(server) ?? [];
      q.push(...faults);
      queues.set(server, q);
    },
    clear(server) {
      const names = server ? [server] : REPLICA_NAMES;
      for (const n of names) {
        queues.delete(n);
        rates.delete(n);
      }
    },
    draw(server, path, channel = 'http') {
      const socket = channel === 'socket';
      if (!socket) seen.set(server, (seen.get(server) ?? 0) + 1);
      const q = queues.get(server);
      if (q && q.length > 0) {
        const i = q.findIndex(
          (f) => (f.path === undefined || path.startsWith(f.path)) && isSocketKind(f.kind) === socket,
        );
        if (i >= 0) return count(server, q.splice(i, 1)[0] as Fault);
      }
      const entry = rates.get(server);
      if (!entry) return null;
      const r = entry.rates;
      if (r.path !== undefined && !path.startsWith(r.path)) return null;
      if (socket) {
        if (!r.rateDropMessage && !r.rateDisconnect) return null;
        const y = entry.socketRng.next();
        const drop = r.rateDropMessage ?? 0;
        if (y < drop) return count(server, { kind: 'drop_message' });
        if (y < drop + (r.rateDisconnect ?? 0)) return count(server, { kind: 'disconnect' });
        return null;
      }
      const x = entry.rng.next();
      const table: [number | undefined, FaultKind][] = [
        [r.rate429, 'rate_limit'],
        [r.rate5xx, 'server_error'],
        [r.rateHang, 'hang'],
        [r.rateMalformed, 'malformed'],
        [r.rateDuplicatePage, 'duplicate_page'],
        [r.rateOverlapPage, 'overlap_page'],
        [r.rateSkipPage, 'skip_page'],
      ];
      let acc = 0;
      for (const [p, kind] of table) {
        acc += p ?? 0;
        if (x < acc) {
          const f: Fault = { kind };
          if (r.retryAfterS !== undefined) f.retryAfterS = r.retryAfterS;
          if (r.status !== undefined) f.status = r.status;
          if (r.hangMs !== undefined) f.delayMs = r.hangMs;
          return count(server, f);
        }
      }
      return null;
    },
    injected: (server) => {
      const { drop_message: _d, disconnect: _c, ...http } = counts.get(server) ?? emptyCounts();
      return http;
    },
    injectedSocket: (server) => {
      const c = counts.get(server) ?? emptyCounts();
      return { drop_message: c.drop_message, disconnect: c.disconnect };
    },
    requests: (server) => seen.get(server) ?? 0,
  };
}
