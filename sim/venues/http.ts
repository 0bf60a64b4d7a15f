/**
 * A small HTTP server for one venue replica: a route table, query helpers, JSON replies, and the fault
 * hook (429, 5xx, hang, malformed record, duplicate/overlapping pages). node:http keeps it light: a small
 * world's six servers start in milliseconds.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Fault, FaultController, ReplicaName } from './faults.ts';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

export interface Query {
  raw: URLSearchParams;
  str(name: string): string | undefined;
  /** Integer or undefined; a malformed value is a 400. */
  int(name: string): number | undefined;
  num(name: string): number | undefined;
  bool(name: string): boolean | undefined;
  /** Repeated parameters and comma-separated values, flattened (`id=1&id=2,3` → ['1','2','3']). */
  list(name: string): string[];
}

export interface RequestContext {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Query;
  body: unknown;
  /** The paging fault drawn for this request, consumed by the pager (see paging.ts). */
  pageFault: Fault | null;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
  /** The records of a list response (for the 'malformed' fault); defaults to the first array found. */
  records?: object[];
  /** Custom corruption for the 'malformed' fault; default: the record's first string field becomes a number. */
  malform?: (record: Record<string, unknown>) => void;
}

export interface Route {
  method: 'GET' | 'POST';
  /** Path pattern, `:name` segments capture (e.g. '/markets/:id'). */
  path: string;
  handler: (ctx: RequestContext) => Reply | Promise<Reply>;
}

export interface ReplicaServer {
  name: ReplicaName;
  url: string;
  close(): Promise<void>;
}

export interface ReplicaServerOptions {
  name: ReplicaName;
  routes: Route[];
  faults: FaultController;
  /** Body for a 429 (default: a JSON error). */
  rateLimitBody?: unknown;
  /** Body for a 5xx (default: a JSON error). */
  serverErrorBody?: unknown;
  notFoundBody?: (path: string) => unknown;
  /** The world's time, Unix ms: every answer's `Date` header (default the wall clock). */
  clock?: () => number;
  /**
   * Serves more on the same server (beta's WebSocket upgrades: sim/venues/beta/socket.ts); what it returns
   * is called on close, before the server closes.
   */
  attach?: (server: http.Server) => () => void;
}

function badRequest(name: string, value: string): HttpError {
  return new HttpError(400, { error: `invalid value for ${name}: ${value}` });
}

function makeQuery(sp: URLSearchParams): Query {
  return {
    raw: sp,
    str: (n) => sp.get(n) ?? undefined,
    int(n) {
      const v = sp.get(n);
      if (v === null || v === '') return undefined;
      if (!/^-?\d+$/.test(v)) throw badRequest(n, v);
      return Number(v);
    },
    num(n) {
      const v = sp.get(n);
      if (v === null || v === '') return undefined;
      const x = Number(v);
      if (!Number.isFinite(x)) throw badRequest(n, v);
      return x;
    },
    bool(n) {
      const v = sp.get(n);
      if (v === null || v === '') return undefined;
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
      throw badRequest(n, v);
    },
    list(n) {
      return sp
        .getAll(n)
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== '');
    },
  };
}

interface CompiledRoute extends Route {
  segments: string[];
}

function match(route: CompiledRoute, segments: string[]): Record<string, string> | null {
  if (route.segments.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const pat = route.segments[i] as string;
    const seg = segments[i] as string;
    if (pat.startsWith(':')) params[pat.slice(1)] = decodeURIComponent(seg);
    else if (pat !== seg) return null;
  }
  return params;
}

function splitPath(path: string): string[] {
  // A trailing slash is not significant ('/events/' and '/events' are the same route).
  return path.split('/').filter((s, i, all) => s !== '' || (i > 0 && i < all.length - 1));
}

function firstRecordArray(body: unknown): object[] | null {
  if (Array.isArray(body)) return body.length > 0 && typeof body[0] === 'object' ? (body as object[]) : null;
  if (body && typeof body === 'object') {
    for (const v of Object.values(body)) {
      const found = firstRecordArray(v);
      if (found) return found;
    }
  }
  return null;
}

/** Default corruption: the first string-valued field becomes a number, which its schema (a string) rejects. */
function defaultMalform(record: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(record)) {
    if (typeof v === 'string') {
      record[k] = 404;
      return;
    }
  }
  for (const [k, v] of Object.entries(record)) {
    if (typeof v === 'number' || typeof v === 'boolean') {
      record[k] = 'malformed';
      return;
    }
  }
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  if (req.method !== 'POST') return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1_000_000) throw new HttpError(413, { error: 'request body too large' });
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, { error: 'invalid JSON body' });
  }
}

function send(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  now: number = Date.now(),
) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(text),
    // The upstream's clock is the world's: a replica answers in world time.
    date: new Date(now).toUTCString(),
    ...headers,
  });
  res.end(text);
}

export async function startReplicaServer(options: ReplicaServerOptions): Promise<ReplicaServer> {
  const { name, faults } = options;
  const clock = options.clock ?? Date.now;
  const routes: CompiledRoute[] = options.routes.map((r) => ({ ...r, segments: splitPath(r.path) }));
  const hanging = new Set<http.ServerResponse>();

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://replica');
    const path = url.pathname;
    const fault = faults.draw(name, path);
    if (fault?.kind === 'rate_limit') {
      const retry = String(fault.retryAfterS ?? 1);
      send(
        res,
        429,
        options.rateLimitBody ?? { error: 'Too Many Requests' },
        { 'retry-after': retry },
        clock(),
      );
      return;
    }
    if (fault?.kind === 'server_error') {
      send(res, fault.status ?? 503, options.serverErrorBody ?? { error: 'internal error' }, {}, clock());
      return;
    }
    if (fault?.kind === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      if (fault.delayMs === undefined) return;
      await new Promise((r) => setTimeout(r, fault.delayMs));
      hanging.delete(res);
      if (res.destroyed) return;
    }
    const segments = splitPath(path);
    let route: CompiledRoute | undefined;
    let params: Record<string, string> | null = null;
    let methodMismatch = false;
    for (const r of routes) {
      const p = match(r, segments);
      if (!p) continue;
      if (r.method !== req.method) {
        methodMismatch = true;
        continue;
      }
      route = r;
      params = p;
      break;
    }
    if (!route || !params) {
      if (methodMismatch) send(res, 405, { error: 'method not allowed' }, {}, clock());
      else send(res, 404, options.notFoundBody?.(path) ?? { error: 'not found' }, {}, clock());
      return;
    }
    const pageFault =
      fault &&
      (fault.kind === 'duplicate_page' || fault.kind === 'overlap_page' || fault.kind === 'skip_page')
        ? fault
        : null;
    const ctx: RequestContext = {
      method: req.method ?? 'GET',
      path,
      params,
      query: makeQuery(url.searchParams),
      body: await readBody(req),
      pageFault,
    };
    const reply = await route.handler(ctx);
    if (fault?.kind === 'malformed') {
      const records =
        reply.records ?? firstRecordArray(reply.body) ?? (reply.body ? [reply.body as object] : []);
      const target = records[0];
      if (target) (reply.malform ?? defaultMalform)(target as Record<string, unknown>);
    }
    send(res, reply.status ?? 200, reply.body, reply.headers, clock());
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpError) send(res, err.status, err.body, {}, clock());
      else send(res, 500, { error: 'internal error' }, {}, clock());
    });
  });
  server.keepAliveTimeout = 5_000;
  const detach = options.attach?.(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        detach?.();
        for (const res of hanging) res.destroy();
        hanging.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
