/**
 * Seeded pseudo-random numbers for the synthetic data generator.
 *
 * The generator must produce identical data for the same options on every run, so nothing here
 * touches Math.random or the clock. Integer state uses only 32-bit integer ops, which are exact
 * everywhere; the few transcendental functions (Math.log/cos/exp, which V8 implements with the
 * portable fdlibm code) only turn uniforms into shaped draws.
 *
 * The core is sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128 bits of state,
 * passes PractRand, and runs on 32-bit integer ops that V8 keeps unboxed, so the hot loop stays fast.
 */

/** 32-bit FNV-1a of a string: turns a stream label into seed material. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** splitmix32 step: spreads a small or patterned seed over the whole state. */
function splitmix32(state: { x: number }): number {
  state.x = (state.x + 0x9e3779b9) | 0;
  let z = state.x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

const TWO_POW_32 = 4294967296;

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /**
   * `seed` is any safe integer; `stream` names an independent sequence, so adding draws to one
   * part of the generator does not shift the numbers another part sees.
   */
  constructor(seed: number, stream = "") {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    const lo = seed >>> 0;
    const hi = Math.floor(seed / TWO_POW_32) >>> 0;
    const st = { x: (lo ^ Math.imul(hi, 0x27d4eb2d) ^ hashString(stream)) | 0 };
    this.a = splitmix32(st);
    this.b = splitmix32(st);
    this.c = splitmix32(st);
    this.d = splitmix32(st);
    // Discard the first outputs: sfc32 mixes slowly from a fresh state.
    for (let i = 0; i < 16; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  range(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal (Box-Muller, one value per call; the spare is dropped to keep the stream simple). */
  normal(): number {
    const u = 1 - this.next(); // (0, 1], so log() is finite
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick from an empty list");
    return items[this.int(items.length)] as T;
  }

  /** Fisher-Yates shuffle of a copy. */
  shuffled<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = out[i] as T;
      out[i] = out[j] as T;
      out[j] = tmp;
    }
    return out;
  }
}

/**
 * Draws index i with probability weights[i] / Σweights in O(1) (Vose's alias method).
 * Used for every categorical draw in the hot loop (BIN, campaign, sub-affiliate, hour of day).
 */
export class WeightedSampler {
  private readonly prob: Float64Array;
  private readonly alias: Int32Array;
  readonly size: number;

  constructor(weights: readonly number[]) {
    const n = weights.length;
    if (n === 0) throw new RangeError("WeightedSampler needs at least one weight");
    let total = 0;
    for (const w of weights) {
      if (!(w >= 0) || !Number.isFinite(w)) throw new RangeError(`invalid weight ${w}`);
      total += w;
    }
    if (total <= 0) throw new RangeError("weights must not all be zero");
    this.size = n;
    this.prob = new Float64Array(n);
    this.alias = new Int32Array(n);
    const scaled = weights.map((w) => (w * n) / total);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
    while (small.length > 0 && large.length > 0) {
      const s = small.pop() as number;
      const l = large.pop() as number;
      this.prob[s] = scaled[s] as number;
      this.alias[s] = l;
      scaled[l] = (scaled[l] as number) + (scaled[s] as number) - 1;
      if ((scaled[l] as number) < 1) small.push(l);
      else large.push(l);
    }
    // Leftovers are 1 up to rounding error.
    for (const i of large) this.prob[i] = 1;
    for (const i of small) this.prob[i] = 1;
  }

  sample(rng: Prng): number {
    const x = rng.next() * this.size;
    const i = Math.floor(x);
    return x - i < (this.prob[i] as number) ? i : (this.alias[i] as number);
  }
}
