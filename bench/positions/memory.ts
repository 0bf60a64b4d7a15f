/**
 * The process's peak resident memory over a phase (Node and the embedded engine share the process, so it is
 * both): on Linux the kernel's high-water mark is reset before the phase (`/proc/self/clear_refs` ← 5) and
 * read after it (`VmHWM`); elsewhere, or when the reset is refused, the RSS sampled every 100 ms. The V8
 * heap's largest sampled use is kept too.
 */
import fs from 'node:fs';

export interface PeakMemory {
  /** RSS when the phase began, bytes. */
  before: number;
  /** Peak RSS in bytes. */
  rss: number;
  /** 'kernel' (VmHWM after a reset) or 'sampled' (every 100 ms). */
  method: 'kernel' | 'sampled';
  /** Largest sampled V8 heap in use, bytes. */
  heapUsed: number;
}

function resetHighWater(): boolean {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

function highWater(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Runs `fn` and returns its result with the peak memory meanwhile. */
export async function withPeakMemory<T>(fn: () => Promise<T>): Promise<{ value: T; peak: PeakMemory }> {
  const kernel = resetHighWater();
  const before = process.memoryUsage.rss();
  let rss = before;
  let heapUsed = process.memoryUsage().heapUsed;
  const sample = () => {
    rss = Math.max(rss, process.memoryUsage.rss());
    heapUsed = Math.max(heapUsed, process.memoryUsage().heapUsed);
  };
  const timer = setInterval(sample, 100);
  try {
    const value = await fn();
    sample();
    const hwm = kernel ? highWater() : null;
    return {
      value,
      peak:
        hwm === null
          ? { before, rss, method: 'sampled', heapUsed }
          : { before, rss: Math.max(hwm, rss), method: 'kernel', heapUsed },
    };
  } finally {
    clearInterval(timer);
  }
}
