/**
 * A small HTTP/1.1 client for streamed JSON-RPC POSTs over plain `http:` (a node on the same host or
 * network, where large backfills run), reading each response body straight into memory its caller
 * hands out (`BodySink.space`) instead of a fresh buffer per socket read: the socket reads with
 * `net`'s `onread` into that memory, the chunked transfer coding is undone in place, and no buffer is
 * allocated per read (slabs.ts says why that matters). `https:` URLs are read with fetch (source.ts).
 *
 * Supported: responses with a Content-Length, chunked, or ending with the connection; keep-alive
 * connections reused per origin; pausing a body (`wrote` returns false) until `resume`. Not supported:
 * compressed bodies (no Accept-Encoding is sent, and a Content-Encoding other than identity fails the
 * request), pipelining, 1xx other than 100, upgrades.
 */
import net from 'node:net';

/** The fewest bytes a sink's `space` holds (a socket read's size). */
export const MIN_SPACE = 64 * 1024;
const MAX_HEAD = 64 * 1024;
const EMPTY = Buffer.alloc(0);
const CR = 0x0d;
const LF = 0x0a;

/** Where a response body goes. */
export interface BodySink {
  /** The response head arrived (before any body byte is written). */
  head?(head: ResponseHead): void;
  /** The memory the next body bytes go to (at least MIN_SPACE bytes), starting at its index 0. */
  space(): Buffer;
  /**
   * `n` body bytes were written at the start of `at`, a buffer `space` returned (the last one, or an
   * earlier one the socket was already given). False pauses the reading.
   */
  wrote(at: Buffer, n: number): boolean;
  /** The body is complete. */
  end(): void;
}

export interface ResponseHead {
  status: number;
  /** Lowercase names; repeated headers joined with ", ". */
  headers: Map<string, string>;
}

export interface HttpExchange {
  /** The response head (rejects when the request fails before it). */
  readonly head: Promise<ResponseHead>;
  /** Settles once the body ended (after the sink's `end`) or the exchange failed. */
  readonly done: Promise<void>;
  /** Reads on after the sink paused. */
  resume(): void;
  /** Fails the exchange with `reason` and closes its connection (no-op once done). */
  abort(reason: Error): void;
}

/** An Error named as classifyRpcError expects of a transport failure (retryable). */
export function transportError(message: string, cause?: unknown): Error {
  const err = new Error(message, { cause });
  Object.defineProperty(err, 'name', { value: 'HttpRequestError' });
  return err;
}

/** A response whose status is not 2xx (classifyRpcError reads `status`: 408, 429, 5xx are retryable). */
export class HttpStatusError extends Error {
  override readonly name = 'HttpRequestError';
  constructor(
    readonly status: number,
    text: string,
  ) {
    super(`HTTP ${status} ${text.slice(0, 200)}`);
  }
}

interface Connection {
  origin: string;
  socket: net.Socket;
  /** Where reads go while no body is being read (a response head). */
  scratch: Buffer;
  exchange: Exchange | undefined;
}

type BodyMode = 'length' | 'chunked' | 'close';
enum Chunk {
  Size,
  Extension,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  Trailer,
  TrailerLine,
  TrailerLf,
  FinalLf,
  Done,
}

class Exchange implements HttpExchange {
  readonly head: Promise<ResponseHead>;
  readonly done: Promise<void>;
  private resolveHead!: (h: ResponseHead) => void;
  private rejectHead!: (e: Error) => void;
  private resolveDone!: () => void;
  private rejectDone!: (e: Error) => void;
  conn: Connection | undefined;
  /** Bytes of the head received so far. */
  private headBytes = EMPTY;
  body: BodyMode | undefined;
  private remaining = 0;
  private chunk = Chunk.Size;
  private chunkLeft = 0;
  keepAlive = true;
  settled = false;
  /** Any byte of the response arrived. */
  received = false;
  paused = false;
  /** Sends the request again on a new connection (set while on a kept-alive one). */
  retry: (() => void) | undefined;

  constructor(
    private readonly agent: HttpAgent,
    readonly origin: string,
    readonly request: string,
    readonly sink: BodySink,
  ) {
    this.head = new Promise((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.head.catch(() => {});
    this.done.catch(() => {});
  }

  /** The buffer the connection's next read goes to. */
  target(conn: Connection): Buffer {
    return this.body === undefined ? conn.scratch : this.sink.space();
  }

  /** `n` bytes arrived in `buf` (the connection's scratch or the sink's space). False pauses. */
  onData(buf: Buffer, n: number): boolean {
    this.received = true;
    if (this.body === undefined) return this.onHeadBytes(buf, n);
    return this.onBody(buf, n);
  }

  private onHeadBytes(buf: Buffer, n: number): boolean {
    const all = Buffer.concat([this.headBytes, buf.subarray(0, n)]);
    this.headBytes = all;
    const end = all.indexOf('\r\n\r\n');
    if (end < 0) {
      if (all.length > MAX_HEAD) this.fail(transportError('HTTP response head too large'));
      return true;
    }
    const lines = all.toString('latin1', 0, end).split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!m) {
      this.fail(transportError(`Not an HTTP/1.x response: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`));
      return false;
    }
    const status = Number(m[2]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    const rest = all.subarray(end + 4);
    this.headBytes = EMPTY;
    if (status === 100) return rest.length === 0 ? true : this.onHeadBytes(rest, rest.length);
    const connection = (headers.get('connection') ?? '').toLowerCase();
    this.keepAlive = m[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    const encoding = (headers.get('content-encoding') ?? 'identity').toLowerCase();
    if (encoding !== 'identity') {
      this.fail(transportError(`Unsupported Content-Encoding ${encoding} (none was asked for)`));
      return false;
    }
    const transfer = (headers.get('transfer-encoding') ?? '').toLowerCase();
    const length = headers.get('content-length');
    if (transfer.includes('chunked')) this.body = 'chunked';
    else if (length !== undefined && /^\d+$/.test(length)) {
      this.body = 'length';
      this.remaining = Number(length);
    } else {
      this.body = 'close';
      this.keepAlive = false;
    }
    const head = { status, headers };
    this.sink.head?.(head);
    this.resolveHead(head);
    if (this.settled) return false;
    if (this.body === 'length' && this.remaining === 0) {
      this.finish();
      return true;
    }
    if (rest.length === 0) return true;
    // The first body bytes came with the head: into the sink's memory, then read as body.
    const space = this.sink.space();
    rest.copy(space, 0);
    return this.onBody(space, rest.length);
  }

  private onBody(buf: Buffer, n: number): boolean {
    let out = n;
    if (this.body === 'length') {
      out = Math.min(n, this.remaining);
      this.remaining -= out;
    } else if (this.body === 'chunked') out = this.unchunk(buf, n);
    if (this.settled) return false;
    const more = out === 0 || this.sink.wrote(buf, out);
    if (this.settled) return false;
    if (
      (this.body === 'length' && this.remaining === 0) ||
      (this.body === 'chunked' && this.chunk === Chunk.Done)
    ) {
      this.finish();
      return true;
    }
    this.paused = !more;
    return more;
  }

  /** Removes the chunked coding of `buf[0, n)` in place; returns the data bytes now at its start. */
  private unchunk(buf: Buffer, n: number): number {
    let o = 0;
    let i = 0;
    while (i < n && this.chunk !== Chunk.Done) {
      if (this.chunk === Chunk.Data) {
        const k = Math.min(this.chunkLeft, n - i);
        if (o !== i) buf.copyWithin(o, i, i + k);
        o += k;
        i += k;
        this.chunkLeft -= k;
        if (this.chunkLeft === 0) this.chunk = Chunk.DataCr;
        continue;
      }
      // Every other state reads one byte of the framing.
      const c = buf[i++]!;
      switch (this.chunk) {
        case Chunk.Size: {
          const h = c | 0x20;
          const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : h >= 0x61 && h <= 0x66 ? h - 87 : -1;
          if (d >= 0) {
            this.chunkLeft = this.chunkLeft * 16 + d;
            if (this.chunkLeft > 2 ** 40) return this.badChunk();
          } else if (c === CR) this.chunk = Chunk.SizeLf;
          else if (c === 0x3b || c === 0x20 || c === 0x09) this.chunk = Chunk.Extension;
          else return this.badChunk();
          break;
        }
        case Chunk.Extension:
          if (c === CR) this.chunk = Chunk.SizeLf;
          break;
        case Chunk.SizeLf:
          if (c !== LF) return this.badChunk();
          this.chunk = this.chunkLeft === 0 ? Chunk.Trailer : Chunk.Data;
          break;
        case Chunk.DataCr:
          if (c !== CR) return this.badChunk();
          this.chunk = Chunk.DataLf;
          break;
        case Chunk.DataLf:
          if (c !== LF) return this.badChunk();
          this.chunk = Chunk.Size;
          break;
        case Chunk.Trailer:
          // At the start of a trailer line: an empty line ends the body.
          this.chunk = c === CR ? Chunk.FinalLf : Chunk.TrailerLine;
          break;
        case Chunk.TrailerLine:
          if (c === LF) this.chunk = Chunk.Trailer;
          break;
        case Chunk.FinalLf:
          if (c !== LF) return this.badChunk();
          this.chunk = Chunk.Done;
          break;
      }
    }
    return o;
  }

  private badChunk(): number {
    this.fail(transportError('Malformed chunked HTTP response body'));
    return 0;
  }

  /** The connection ended (or failed) with this exchange on it. */
  onClose(err: Error | undefined): void {
    if (this.settled) return;
    if (!err && this.body === 'close') {
      this.sink.end();
      this.settle();
      return;
    }
    this.fail(err ?? transportError('Connection closed before the response ended'));
  }

  private finish(): void {
    if (this.settled) return;
    const conn = this.conn;
    this.settled = true;
    this.conn = undefined;
    if (conn) this.agent.release(conn, this.keepAlive);
    try {
      this.sink.end();
      this.resolveDone();
    } catch (err) {
      this.rejectDone(err as Error);
    }
  }

  private settle(): void {
    this.settled = true;
    const conn = this.conn;
    this.conn = undefined;
    if (conn) this.agent.release(conn, false);
    this.resolveDone();
  }

  fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    const conn = this.conn;
    this.conn = undefined;
    if (conn) {
      conn.exchange = undefined;
      conn.socket.destroy();
    }
    this.rejectHead(err);
    this.rejectDone(err);
  }

  resume(): void {
    if (!this.paused || this.settled) return;
    this.paused = false;
    this.conn?.socket.resume();
  }

  abort(reason: Error): void {
    this.fail(reason);
  }
}

/** Keep-alive connections by origin, and the requests over them. */
export class HttpAgent {
  private readonly idle = new Map<string, Connection[]>();

  /** POSTs `body` (JSON) to `url`; the response body goes to `sink`. */
  post(url: string, body: string, sink: BodySink): HttpExchange {
    const u = new URL(url);
    if (u.protocol !== 'http:') throw new Error(`HttpAgent reads http: URLs only, not ${u.protocol}`);
    const auth = u.username
      ? `Authorization: Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}\r\n`
      : '';
    const request =
      `POST ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n${auth}` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: keep-alive\r\n\r\n${body}`;
    const origin = `${u.hostname}:${u.port || 80}`;
    const exchange = new Exchange(this, origin, request, sink);
    this.send(exchange, u.hostname.replace(/^\[|\]$/g, ''), Number(u.port || 80), true);
    return exchange;
  }

  private send(exchange: Exchange, host: string, port: number, mayReuse: boolean): void {
    const list = mayReuse ? this.idle.get(exchange.origin) : undefined;
    let conn = list?.pop();
    while (conn?.socket.destroyed) conn = list?.pop();
    exchange.retry = undefined;
    if (conn) {
      conn.socket.ref();
      // A kept-alive connection the server closed meanwhile fails before any byte: once more, anew.
      exchange.retry = () => this.send(exchange, host, port, false);
    } else conn = this.connect(exchange.origin, host, port);
    conn.exchange = exchange;
    exchange.conn = conn;
    conn.socket.write(exchange.request);
  }

  private connect(origin: string, host: string, port: number): Connection {
    const conn: Connection = {
      origin,
      socket: undefined as unknown as net.Socket,
      scratch: Buffer.allocUnsafeSlow(MIN_SPACE),
      exchange: undefined,
    };
    conn.socket = net.connect({
      host,
      port,
      noDelay: true,
      onread: {
        buffer: () => conn.exchange?.target(conn) ?? conn.scratch,
        callback: (n: number, buf: Uint8Array) => {
          const ex = conn.exchange;
          if (!ex) {
            // Bytes with no request: not a server this client can follow.
            conn.socket.destroy();
            return false;
          }
          return ex.onData(buf as Buffer, n);
        },
      },
    });
    const closed = (err?: Error) => {
      const ex = conn.exchange;
      conn.exchange = undefined;
      if (!ex) {
        const l = this.idle.get(origin);
        const at = l?.indexOf(conn) ?? -1;
        if (at >= 0) l!.splice(at, 1);
        return;
      }
      ex.conn = undefined;
      if (ex.retry && !ex.received && !ex.settled) {
        ex.retry();
        return;
      }
      ex.onClose(err ? transportError(`eth_getLogs: ${err.message}`, err) : undefined);
    };
    conn.socket.on('error', (err) => closed(err));
    conn.socket.on('close', () => closed());
    conn.socket.on('end', () => conn.socket.end());
    return conn;
  }

  /** An exchange is done with `conn`: kept for the next request to its origin, or closed. */
  release(conn: Connection, keepAlive: boolean): void {
    conn.exchange = undefined;
    if (!keepAlive || conn.socket.destroyed) {
      conn.socket.destroy();
      return;
    }
    conn.socket.resume();
    const list = this.idle.get(conn.origin) ?? [];
    list.push(conn);
    this.idle.set(conn.origin, list);
    // An idle connection is not what keeps the process alive.
    conn.socket.unref();
  }

  /** Closes the idle connections. */
  close(): void {
    for (const list of this.idle.values()) for (const c of list) c.socket.destroy();
    this.idle.clear();
  }
}
