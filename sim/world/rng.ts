/**
 * Seeded deterministic PRNG for the simulated world (sfc32, seeded through a string hash).
 * Invariant: the same seed gives the same sequence on every run and machine. Nothing in sim/ may use
 * Math.random; take an Rng (or fork one with a label) instead, so adding draws in one place does not
 * shift the sequence used elsewhere.
 */

export interface Rng {
  /** The seed this generator was made from (forks carry `parent/label`). */
  readonly seed: string;
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** Uniform float in [min, max). */
  float(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** Index picked with the given non-negative weights. */
  weightedIndex(weights: readonly number[]): number;
  /** A new shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** Gaussian sample (Box–Muller). */
  normal(mean?: number, stdDev?: number): number;
  /** 32 random bytes as a 0x-prefixed lowercase hex string. */
  hex32(): `0x${string}`;
  /** An independent generator derived from this one's seed and a label; does not consume draws. */
  fork(label: string): Rng;
}

const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** cyrb128: a fast string hash giving four 32-bit words, used to seed sfc32. */
function cyrb128(str: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < str.length; i++) {
    const k = str.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export function createRng(seed: string | number): Rng {
  const seedText = String(seed);
  let [a, b, c, d] = cyrb128(seedText);

  const nextU32 = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Discard the first outputs: sfc32 mixes poorly for the first few draws.
  for (let i = 0; i < 15; i++) nextU32();

  const next = (): number => nextU32() / 4294967296;
  let spareNormal: number | null = null;

  const rng: Rng = {
    seed: seedText,
    next,
    int(min, max) {
      if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
        throw new RangeError(`rng.int needs integers min <= max, got ${min}, ${max}`);
      }
      return min + Math.floor(next() * (max - min + 1));
    },
    float(min, max) {
      return min + next() * (max - min);
    },
    chance(p) {
      return next() < p;
    },
    pick(items) {
      if (items.length === 0) throw new RangeError('rng.pick on an empty array');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    weightedIndex(weights) {
      let total = 0;
      for (const w of weights) total += w;
      if (!(total > 0)) throw new RangeError('rng.weightedIndex needs a positive total weight');
      let r = next() * total;
      for (let i = 0; i < weights.length; i++) {
        r -= weights[i] as number;
        if (r < 0) return i;
      }
      return weights.length - 1;
    },
    shuffle(items) {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        const tmp = out[i] as (typeof out)[number];
        out[i] = out[j] as (typeof out)[number];
        out[j] = tmp;
      }
      return out;
    },
    normal(mean = 0, stdDev = 1) {
      if (spareNormal !== null) {
        const z = spareNormal;
        spareNormal = null;
        return mean + stdDev * z;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spareNormal = r * Math.sin(2 * Math.PI * v);
      return mean + stdDev * r * Math.cos(2 * Math.PI * v);
    },
    hex32() {
      let s = '0x';
      for (let i = 0; i < 8; i++) {
        const x = nextU32();
        s +=
          (BYTE_HEX[x >>> 24] as string) +
          BYTE_HEX[(x >>> 16) & 255] +
          BYTE_HEX[(x >>> 8) & 255] +
          BYTE_HEX[x & 255];
      }
      return s as `0x${string}`;
    },
    fork(label) {
      return createRng(`${seedText}/${label}`);
    },
  };
  return rng;
}
