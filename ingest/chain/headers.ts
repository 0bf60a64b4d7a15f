/**
 * Block headers for log pages: requested ahead of the logs that need them, and checked against every
 * log's block hash when the logs arrive.
 *
 * Invariant: every row written carries the block hash of the header the pipeline holds for its block;
 * a log whose blockHash differs from that header means the chain moved under us, and its page fails
 * with ReorgDetectedError before any of its rows is written.
 */
import type { PackedLogs } from './packed-logs.ts';
import { ReorgDetectedError } from './rpc-errors.ts';
import type { LogSource } from './source.ts';
import type { BlockHeader } from './types.ts';

/**
 * Ranges of at most this many blocks have their blocks' headers requested with their logs, together
 * with the headers of as many blocks after them: on a busy chain nearly every block of a short range
 * has logs, and a node building large log responses (anvil) answers nothing else until they are built,
 * so a header asked for once its logs arrive, or just as they are requested, waits behind the next
 * ranges' logs.
 */
const HEADER_REQUEST_BLOCKS = 100;

/** Headers requested ahead of the logs that need them, by block. */
export class HeaderRequests {
  readonly #byBlock = new Map<number, Promise<BlockHeader | undefined>>();
  /** Highest block whose header is requested. */
  #upTo = -1;
  constructor(
    private readonly source: LogSource,
    private readonly known: Map<number, BlockHeader> | undefined,
    /** The walk's last block (headers are not requested past it, but for a range beyond it). */
    private readonly last: number,
  ) {}

  /** A range [from, to] is requested: requests the headers of its blocks and the next ones if short. */
  request(from: number, to: number): void {
    if (to - from + 1 > HEADER_REQUEST_BLOCKS) return;
    const lo = Math.max(from, this.#upTo + 1);
    const hi = Math.max(to, Math.min(this.last, to + HEADER_REQUEST_BLOCKS));
    if (lo > hi) return;
    this.#upTo = hi;
    const numbers: number[] = [];
    for (let n = lo; n <= hi; n++) if (!this.known?.has(n) && !this.#byBlock.has(n)) numbers.push(n);
    if (numbers.length === 0) return;
    // A failed request leaves its blocks to the fetch made when their logs arrive.
    const all = this.source.getHeaders(numbers).catch(() => new Map<number, BlockHeader>());
    for (const n of numbers)
      this.#byBlock.set(
        n,
        all.then((m) => m.get(n)),
      );
  }

  get(n: number): Promise<BlockHeader | undefined> | undefined {
    return this.#byBlock.get(n);
  }

  /** Drops the requests of blocks up to `to` (their pages are handled). */
  forget(to: number): void {
    for (const n of this.#byBlock.keys()) if (n <= to) this.#byBlock.delete(n);
  }
}

/**
 * The headers of every block `logs` has a log in, and of block `extra` (a page's last block, for its
 * checkpoint): from `known`, then `requested`, then fetched. Throws ReorgDetectedError when a log's
 * block hash is not its header's.
 */
export async function headersFor(
  source: LogSource,
  logs: PackedLogs,
  extra: number,
  known: Map<number, BlockHeader> | undefined,
  requested?: HeaderRequests,
): Promise<Map<number, BlockHeader>> {
  const wanted = new Set<number>([extra]);
  for (const n of logs.blocks()) wanted.add(n);
  const out = new Map<number, BlockHeader>();
  const missing: number[] = [];
  for (const n of wanted) {
    const h = known?.get(n) ?? (await requested?.get(n));
    if (h) out.set(n, h);
    else missing.push(n);
  }
  if (missing.length > 0) {
    const fetched = await source.getHeaders(missing);
    for (const [n, h] of fetched) out.set(n, h);
  }
  // Logs come in block order: the hash is compared again only where the block (or its hash) changes.
  for (let i = 0; i < logs.length; i++) {
    if (i > 0 && logs.sameBlockAsPrevious(i)) continue;
    const n = logs.blockNumber(i);
    const hash = logs.blockHash(i);
    // A log whose block fields could not be read (packed-logs.ts: a defect) is the mapper's to quarantine.
    if (logs.hasDefects && (Number.isNaN(n) || hash.startsWith('!'))) continue;
    const h = out.get(n);
    if (!h || h.hash !== hash.toLowerCase()) {
      throw new ReorgDetectedError(
        `Block ${n} changed while reading it: log block hash ${hash}, header ${h?.hash ?? 'missing'}`,
        n,
      );
    }
  }
  return out;
}
