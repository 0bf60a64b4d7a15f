/**
 * Reusable memory for `eth_getLogs` bodies. A response's bytes are copied into a slab as they arrive
 * (source.ts, slab-reader.ts), its logs are located in place (`PackedLogs` over the slab's bytes, their offsets
 * in the slab's own offset table), and the slab goes back to the pool once every page cut from it has
 * been mapped and released.
 *
 * Why: held in freshly allocated buffers (joined batches, concatenated pages), every
 * byte of a backfill (≈ 1 KB of JSON per log, GBs per backfill) is memory V8 counts as external, and
 * each ≈ 16–32 MB of it starts a young-generation GC and each 64 MB an old-generation marking: ≈ 900
 * collections in one 5M-log backfill, ≈ 10 s of GC CPU on a 25 MB heap (docs/chain-ingestion.md,
 * "Reading into slabs"). A page that is never released is simply collected with its
 * slab, as any buffer would be: releasing is an optimisation, never a requirement.
 */
import { F } from './packed-logs.ts';

/** Bytes of one slab (a page of the default target, ≈ 10 MB, fits with room to spare). */
export const SLAB_BYTES = 16 * 2 ** 20;
/**
 * Bytes per log the offset table is sized for (a log with a topic and no data takes ≈ 400, an
 * OrderFilled ≈ 1,000): a slab of smaller logs moves on when its table is full.
 */
export const MIN_LOG_BYTES = 512;

export class Slab {
  readonly buf: Buffer;
  /** Offsets of the logs located in `buf`, F per log (PackedLogs' layout). */
  readonly f: Int32Array;
  /** Holders: the reader writing into it, and every page cut from it that is not released. */
  private refs = 1;

  constructor(
    readonly pool: SlabPool | undefined,
    bytes: number,
  ) {
    this.buf = Buffer.allocUnsafeSlow(bytes);
    this.f = new Int32Array(Math.ceil(bytes / MIN_LOG_BYTES) * F);
  }

  retain(): SlabLease {
    this.refs++;
    return new SlabLease(this);
  }

  /** Drops one holder; the last one gives the slab back to its pool. */
  drop(): void {
    if (--this.refs === 0) this.pool?.give(this);
  }

  /** A slab taken from the pool again: the taker is its one holder. */
  reset(): void {
    this.refs = 1;
  }
}

/** One page's hold on a slab; `release` is idempotent. */
export class SlabLease {
  private slab: Slab | undefined;
  constructor(slab: Slab) {
    this.slab = slab;
  }
  release(): void {
    const s = this.slab;
    this.slab = undefined;
    s?.drop();
  }
}

export class SlabPool {
  private readonly free: Slab[] = [];
  /** Slabs made and slabs taken again from the pool. */
  readonly counters = { made: 0, reused: 0 };

  constructor(
    readonly slabBytes = SLAB_BYTES,
    /**
     * Free slabs kept; more are left to the garbage collector. A backfill of the benchmark world has
     * ≈ 10 slabs in use at its peak: a pool that keeps them makes no slab after its first seconds.
     */
    private readonly keep = 12,
  ) {}

  /** A slab of at least `bytes` (the pool's size when smaller: only those are pooled). */
  take(bytes = this.slabBytes): Slab {
    if (bytes > this.slabBytes) return new Slab(undefined, bytes);
    const s = this.free.pop();
    if (s) {
      this.counters.reused++;
      s.reset();
      return s;
    }
    this.counters.made++;
    return new Slab(this, this.slabBytes);
  }

  give(slab: Slab): void {
    if (this.free.length < this.keep) this.free.push(slab);
  }
}
