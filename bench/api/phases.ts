/**
 * Where a request's time goes, measured from outside the app's code at concurrency 1 (one request at a
 * time, so every CPU second of the process between two marks belongs to that request's phase):
 *
 *   HTTP server 'request' event ─ routing ─▶ onRequest (ours runs first) ─ auth + limits (the key lookup
 *   and the limiter's Redis round trips) ─▶ preValidation ─ validation ─▶ preHandler ─ handler ─▶
 *   the handler returns ─ serialization ─▶ onSend ─ send ─▶ onResponse
 *
 * Inside the handler, every call through the ClickHouse wrapper is timed (its label, wall and CPU), and
 * the embedded engine's own calls (chdb Session.queryAsync / queryBindAsync) are timed inside those: the
 * engine part is planning + reading + formatting the result in the engine (chDB's own `elapsed` is kept
 * too), the rest of the wrapper call is the client library and parsing the result in JS. What remains of
 * the handler is the route's own JS. "client + rest" is what the client measured around the request
 * (fetch, parsing the body) minus the server's span.
 *
 * A request answered by a hook without reaching its handler (a response cache hit) shows that span as
 * one row. Queries that overlap each other (a background refresh beside the page query) each keep their
 * row, and an "overlap" row subtracts what two rows both count, so the rows add up to the total.
 */
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { ClickHouse } from '../../core/clickhouse/index.ts';
import { cpuNowMs } from './load.ts';

const MARKS = ['arrived', 'routed', 'authorized', 'validated', 'handled', 'serialized', 'sent'] as const;
type MarkName = (typeof MARKS)[number];
const PHASE_OF: Record<Exclude<MarkName, 'arrived'>, string> = {
  routed: 'routing',
  authorized: 'auth + limits (Redis)',
  validated: 'validation',
  handled: 'handler JS (route code)',
  serialized: 'JSON serialization',
  sent: 'send (onSend hooks, socket write)',
};

interface Mark {
  wall: number;
  cpu: number;
}

interface QueryCall {
  label: string;
  start: Mark;
  end: Mark;
  wall: number;
  cpu: number;
  /** The engine's calls during this query: wall, CPU, chDB's own elapsed (ms), result bytes. */
  engineWall: number;
  engineCpu: number;
  engineElapsed: number;
  resultBytes: number;
}

interface RequestRecord {
  marks: Partial<Record<MarkName, Mark>>;
  queries: QueryCall[];
  redisCommands: number;
  redisWall: number;
}

const mark = (): Mark => ({ wall: performance.now(), cpu: cpuNowMs() });

type EngineMethod = (
  this: unknown,
  ...args: unknown[]
) => Promise<{ elapsed?: number; bytes?: () => Uint8Array }>;

/** One row of the breakdown: mean per request. */
export interface PhaseRow {
  phase: string;
  wallMs: number;
  cpuMs: number;
  /** chDB's own elapsed (ms) and result size (bytes), on engine rows. */
  engineElapsedMs?: number;
  resultBytes?: number;
}

export interface Breakdown {
  requests: number;
  rows: PhaseRow[];
  totalWallMs: number;
  totalCpuMs: number;
  /** Redis commands the app sent per request, and the wall ms from sending one to its reply. */
  redisCommands: number;
  redisWallMs: number;
}

export function createPhaseProbe() {
  let recording = false;
  let current: RequestRecord | undefined;
  let activeQuery: QueryCall | undefined;
  /** Wrapper calls not finished yet: an engine call made after an await belongs to one of them. */
  const inflight = new Set<QueryCall>();
  /** The newest wrapper call still waiting for its first engine call. */
  const awaiting = () => {
    let found: QueryCall | undefined;
    for (const q of inflight)
      if (q.engineWall === 0 && (!found || q.start.wall > found.start.wall)) found = q;
    return found;
  };
  const records: RequestRecord[] = [];
  const client: { wall: number; cpu: number; ok: boolean }[] = [];
  let engineCalls = 0;

  const at = (name: MarkName) => {
    if (recording && current) current.marks[name] = mark();
  };

  /** Hooks added before the app's own (AppOptions.configure). */
  function configure(app: FastifyInstance): void {
    app.server.prependListener('request', () => {
      if (!recording) return;
      current = { marks: {}, queries: [], redisCommands: 0, redisWall: 0 };
      records.push(current);
      at('arrived');
    });
    app.addHook('onRequest', async () => at('routed'));
    app.addHook('preValidation', async () => at('authorized'));
    app.addHook('preHandler', async () => at('validated'));
    // The handler's end: each route's handler wrapped as it is added (routes come after this hook).
    app.addHook('onRoute', (route) => {
      const handler = route.handler as (this: unknown, ...args: unknown[]) => unknown;
      route.handler = function (this: unknown, ...args: unknown[]) {
        const out = handler.apply(this, args);
        const done = () => {
          if (current && !current.marks.serialized) at('handled');
        };
        if (out && typeof (out as Promise<unknown>).then === 'function') {
          return (out as Promise<unknown>).then((v) => {
            done();
            return v;
          });
        }
        done();
        return out;
      } as typeof route.handler;
    });
    app.addHook('onSend', async (_req, _reply, payload) => {
      at('serialized');
      return payload;
    });
    app.addHook('onResponse', async () => at('sent'));
  }

  /** The ClickHouse bag the app gets: every method call timed while recording. */
  function instrument(clickhouse: ClickHouse): ClickHouse {
    return new Proxy(clickhouse, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (!recording || !current) return value.apply(target, args);
          const call: QueryCall = {
            label: typeof args[0] === 'string' ? args[0] : String(prop),
            start: mark(),
            end: { wall: 0, cpu: 0 },
            wall: 0,
            cpu: 0,
            engineWall: 0,
            engineCpu: 0,
            engineElapsed: 0,
            resultBytes: 0,
          };
          const rec = current;
          const done = () => {
            inflight.delete(call);
            call.end = mark();
            call.wall = call.end.wall - call.start.wall;
            call.cpu = call.end.cpu - call.start.cpu;
            rec.queries.push(call);
          };
          // The engine call is made synchronously inside (the client and the chDB connection reach it
          // before their first await): it finds its query here.
          activeQuery = call;
          inflight.add(call);
          let out: unknown;
          try {
            out = value.apply(target, args);
          } finally {
            activeQuery = undefined;
          }
          if (out && typeof (out as Promise<unknown>).then === 'function') {
            return (out as Promise<unknown>).finally(done);
          }
          done();
          return out;
        };
      },
    });
  }

  /** Counts and times the commands the app sends on this client (ioredis sends each through sendCommand). */
  function instrumentRedis(redis: Redis): Redis {
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      const rec = recording ? current : undefined;
      if (rec) {
        const t0 = performance.now();
        rec.redisCommands++;
        const settle = () => {
          rec.redisWall += performance.now() - t0;
        };
        (command as unknown as { promise: Promise<unknown> }).promise.then(settle, settle);
      }
      return send(command, stream);
    };
    return redis;
  }

  /**
   * Times the embedded engine's own query calls (chdb's Session, which the client's chDB connection
   * runs every statement through). Patched once per process; a no-op when chdb cannot be loaded.
   */
  function patchEngine(): boolean {
    let Session: { prototype: Record<string, unknown> } | undefined;
    try {
      Session = (createRequire(import.meta.url)('chdb') as { Session?: typeof Session }).Session;
    } catch {
      return false;
    }
    if (!Session) return false;
    const proto = Session.prototype;
    if (proto.__pmdataBenchPatched) return true;
    for (const name of ['queryAsync', 'queryBindAsync']) {
      const original = proto[name] as EngineMethod | undefined;
      if (typeof original !== 'function') continue;
      proto[name] = function (this: unknown, ...args: unknown[]) {
        const call = recording ? (activeQuery ?? awaiting()) : undefined;
        const start = call ? mark() : undefined;
        const out = original.apply(this, args);
        if (!call || !start) return out;
        return out.then((result) => {
          const end = mark();
          engineCalls++;
          call.engineWall += end.wall - start.wall;
          call.engineCpu += end.cpu - start.cpu;
          call.engineElapsed += (result?.elapsed ?? 0) * 1000;
          call.resultBytes += result?.bytes?.().length ?? 0;
          return result;
        });
      };
    }
    proto.__pmdataBenchPatched = true;
    return true;
  }

  function summarize(): Breakdown {
    const phases = new Map<string, PhaseRow & { rank: number }>();
    const add = (rank: number, phase: string, wall: number, cpu: number, extra?: Partial<PhaseRow>) => {
      const row = phases.get(phase) ?? { rank, phase, wallMs: 0, cpuMs: 0 };
      row.wallMs += wall;
      row.cpuMs += cpu;
      if (extra?.engineElapsedMs !== undefined)
        row.engineElapsedMs = (row.engineElapsedMs ?? 0) + extra.engineElapsedMs;
      if (extra?.resultBytes !== undefined) row.resultBytes = (row.resultBytes ?? 0) + extra.resultBytes;
      phases.set(phase, row);
    };
    // The rows every breakdown shows, whatever a request skipped.
    for (const [i, m] of (['routed', 'authorized', 'validated'] as const).entries())
      add(i, PHASE_OF[m], 0, 0);
    let n = 0;
    let totalWall = 0;
    let totalCpu = 0;
    let redisCommands = 0;
    let redisWall = 0;
    const pairs = Math.min(records.length, client.length);
    for (let i = 0; i < pairs; i++) {
      const rec = records[i]!;
      const c = client[i]!;
      const first = rec.marks.arrived;
      if (!c.ok || !first) continue;
      n++;
      let prev = first;
      let skipped: MarkName[] = [];
      MARKS.forEach((name, rank) => {
        const m = rec.marks[name];
        if (name === 'arrived') return;
        if (!m) {
          skipped.push(name);
          return;
        }
        // Queries that started within this span get their own rows; the span's row keeps the rest. Queries
        // that overlap each other (a background refresh beside the page query) are subtracted once.
        const inSpan = rec.queries
          .filter((q) => q.start.wall >= prev.wall && q.start.wall < m.wall)
          .sort((a, b) => a.start.wall - b.start.wall);
        let unionWall = 0;
        let unionCpu = 0;
        let open: { start: Mark; end: Mark } | undefined;
        for (const q of inSpan) {
          // A query still running when the span ends (not awaited by it) counts up to the span's end.
          const qEnd = q.end.wall > m.wall ? m : q.end;
          add(3, `query ${q.label}: engine`, q.engineWall, q.engineCpu, {
            engineElapsedMs: q.engineElapsed,
            resultBytes: q.resultBytes,
          });
          add(3, `query ${q.label}: client + JS parse`, q.wall - q.engineWall, q.cpu - q.engineCpu);
          if (open && q.start.wall <= open.end.wall) {
            if (qEnd.wall > open.end.wall) open.end = qEnd;
          } else {
            if (open) {
              unionWall += open.end.wall - open.start.wall;
              unionCpu += open.end.cpu - open.start.cpu;
            }
            open = { start: q.start, end: qEnd };
          }
        }
        if (open) {
          unionWall += open.end.wall - open.start.wall;
          unionCpu += open.end.cpu - open.start.cpu;
        }
        const qWall = inSpan.reduce((t, q) => t + q.wall, 0);
        const qCpu = inSpan.reduce((t, q) => t + q.cpu, 0);
        if (qWall !== unionWall) {
          add(3.5, 'overlap, or run past the phase, of queries above', unionWall - qWall, unionCpu - qCpu);
        }
        // A request that skipped the handler was answered by a hook (a cache hit) or failed early.
        const label = skipped.includes('handled')
          ? 'answered by a hook, no handler (e.g. a cache hit)'
          : PHASE_OF[name as Exclude<MarkName, 'arrived'>];
        add(
          skipped.includes('handled') ? 3.9 : rank <= 3 ? rank - 1 : rank,
          label,
          m.wall - prev.wall - unionWall,
          m.cpu - prev.cpu - unionCpu,
        );
        skipped = [];
        prev = m;
      });
      add(
        9,
        'client (fetch, body parse) + rest',
        c.wall - (prev.wall - first.wall),
        c.cpu - (prev.cpu - first.cpu),
      );
      totalWall += c.wall;
      totalCpu += c.cpu;
      redisCommands += rec.redisCommands;
      redisWall += rec.redisWall;
    }
    const div = Math.max(1, n);
    const rows = [...phases.values()]
      .sort((a, b) => a.rank - b.rank)
      .map(({ rank: _, ...r }) => ({
        ...r,
        wallMs: r.wallMs / div,
        cpuMs: r.cpuMs / div,
        engineElapsedMs: r.engineElapsedMs === undefined ? undefined : r.engineElapsedMs / div,
        resultBytes: r.resultBytes === undefined ? undefined : r.resultBytes / div,
      }));
    return {
      requests: n,
      rows,
      totalWallMs: totalWall / div,
      totalCpuMs: totalCpu / div,
      redisCommands: redisCommands / div,
      redisWallMs: redisWall / div,
    };
  }

  return {
    configure,
    instrument,
    instrumentRedis,
    patchEngine,
    /** Engine calls seen while recording (0 means the engine patch did not take). */
    engineCalls: () => engineCalls,
    /** Starts recording a fresh set of requests (concurrency 1 only). */
    start() {
      records.length = 0;
      client.length = 0;
      current = undefined;
      activeQuery = undefined;
      inflight.clear();
      recording = true;
    },
    /** The client's view of each request, in order: pairs with the server's records. */
    observe(wall: number, cpu: number, ok: boolean) {
      client.push({ wall, cpu, ok });
    },
    /** Stops recording (after onResponse hooks still pending have run) and returns the means. */
    async stop(): Promise<Breakdown> {
      await new Promise((r) => setTimeout(r, 20));
      recording = false;
      return summarize();
    },
  };
}

export type PhaseProbe = ReturnType<typeof createPhaseProbe>;

export function formatBreakdown(title: string, b: Breakdown): string[] {
  const out = [
    `where the time goes: ${title} (${b.requests} requests, mean per request)`,
    `  ${'phase'.padEnd(52)}   wall ms   cpu ms   cpu %   engine elapsed ms   result KB`,
  ];
  for (const r of b.rows) {
    out.push(
      [
        `  ${r.phase.padEnd(52)}`,
        r.wallMs.toFixed(2).padStart(9),
        r.cpuMs.toFixed(2).padStart(8),
        (b.totalCpuMs > 0 ? (100 * r.cpuMs) / b.totalCpuMs : 0).toFixed(0).padStart(7),
        (r.engineElapsedMs === undefined ? '' : r.engineElapsedMs.toFixed(2)).padStart(19),
        (r.resultBytes === undefined ? '' : (r.resultBytes / 1024).toFixed(1)).padStart(11),
      ].join(' '),
    );
  }
  out.push(
    `  ${'total (as the client measured it)'.padEnd(52)}${b.totalWallMs.toFixed(2).padStart(10)}${b.totalCpuMs.toFixed(2).padStart(9)}`,
    `  Redis: ${b.redisCommands.toFixed(1)} commands per request, ${b.redisWallMs.toFixed(2)} ms from sending to reply (within the rows above)`,
  );
  return out;
}
