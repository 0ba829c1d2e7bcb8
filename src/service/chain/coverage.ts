import type { DexGroup } from '../../shared/groups';

/** Decoded and undecodable pool outputs of one DEX over a window. */
export interface GroupCoverage {
  readonly decoded: number;
  readonly undecodable: number;
}

const MINUTE = 60;
/** The longest window asked (a day), in minutes kept. */
const KEPT_MINUTES = 24 * 60;

/**
 * How many recognised pool outputs of each DEX the chain source decoded and could not decode, by minute of block time
 * over the last day of the chain applied (`/api/x/status`): a decoder that stops matching a DEX's new layout shows as
 * that DEX's undecodable outputs growing while its decoded ones stop. Windows end at the newest block time recorded, so
 * a market catching up reports the chain's hour, not the wall clock's. Counts are of outputs seen: a rollback does
 * not take them back.
 */
export class DecodeCoverage {
  /** Minute (Unix seconds / 60) → DEX → [decoded, undecodable]. */
  private readonly minutes = new Map<number, Map<DexGroup, [number, number]>>();
  private newest = -Infinity;

  record(group: DexGroup, blockTime: number, decoded: boolean): void {
    const minute = Math.floor(blockTime / MINUTE);
    if (minute <= this.newest - KEPT_MINUTES) return;
    let groups = this.minutes.get(minute);
    if (!groups) {
      groups = new Map();
      this.minutes.set(minute, groups);
      if (minute > this.newest) {
        this.newest = minute;
        for (const kept of this.minutes.keys()) if (kept <= minute - KEPT_MINUTES) this.minutes.delete(kept);
      }
    }
    const counts = groups.get(group) ?? [0, 0];
    counts[decoded ? 0 : 1]++;
    groups.set(group, counts);
  }

  /** Per DEX, the outputs of the last `seconds` of block time (at most a day) before the newest recorded. */
  window(seconds: number): Map<DexGroup, GroupCoverage> {
    const from = this.newest - Math.ceil(Math.min(seconds, KEPT_MINUTES * MINUTE) / MINUTE);
    const totals = new Map<DexGroup, GroupCoverage>();
    for (const [minute, groups] of this.minutes) {
      if (minute <= from) continue;
      for (const [group, [decoded, undecodable]] of groups) {
        const sum = totals.get(group) ?? { decoded: 0, undecodable: 0 };
        totals.set(group, { decoded: sum.decoded + decoded, undecodable: sum.undecodable + undecodable });
      }
    }
    return totals;
  }
}
