import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** Mixes integers into one 32-bit seed (murmur3 finaliser), so streams for (seed, a, b) are independent. */
export function mixSeed(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h ^ Math.floor(part / 0x100000000), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h | 0;
}

/** A deterministic random source with the distributions the simulator needs. */
export class Random {
  private readonly rng: RandomGenerator;

  constructor(...seedParts: number[]) {
    this.rng = xoroshiro128plus(mixSeed(...seedParts));
  }

  /** Uniform in [0, 1). */
  float(): number {
    return uniformFloat64(this.rng);
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }

  /** Poisson count with mean lambda (Knuth; lambda is small here). */
  poisson(lambda: number): number {
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.float();
    while (p > limit) {
      k++;
      p *= this.float();
    }
    return k;
  }

  /** Pareto with scale 1 and shape alpha: heavy-tailed, >= 1. */
  pareto(alpha: number): number {
    return (1 - this.float()) ** (-1 / alpha);
  }

  hex(bytes: number): string {
    let out = '';
    for (let i = 0; i < bytes; i++) out += this.int(256).toString(16).padStart(2, '0');
    return out;
  }
}
