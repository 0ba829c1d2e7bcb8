/** What the fan-out needs of a browser connection (live-hub.ts's LiveClient). */
export interface FanoutClient {
  readonly pools: ReadonlySet<string>;
  write(frame: string, bytes?: number): boolean;
  writeNow?(frame: string, bytes?: number): boolean;
}

/**
 * The browsers that follow one same set of pools. A synchronous run's trade frames for them are
 * queued once and joined once, then written to each as one text: browsers showing the same chart
 * (the common case: one pool, or a popular watchlist) share the work of a commit.
 */
interface Group<C extends FanoutClient> {
  readonly pools: ReadonlySet<string>;
  readonly clients: Set<C>;
  frames: string[];
  bytes: number;
}

const resolved = Promise.resolve();

/**
 * Trade frames fanned out to browsers by pool, coalesced per synchronous run (an upstream chunk's
 * lines) and per set of pools: for each event, one queue per distinct set following its pool rather
 * than one write per browser; at the end of the run (a microtask, or `flush` when something else must
 * be written first) each set's frames are joined once and handed to each of its browsers in one write.
 * A browser still sees its frames in the order the events came.
 */
export class TradeFanout<C extends FanoutClient> {
  /** Each followed pool's groups: its keys are the union of every browser's pools. */
  readonly byPool = new Map<string, Set<Group<C>>>();
  /** Groups by an order-independent hash of their pools (hashKey), equal sets compared in full. */
  private readonly groups = new Map<string, Group<C>[]>();
  /** Groups with frames queued in this run, in the order of their first frame. */
  private dirty: Group<C>[] = [];
  private scheduled = false;

  /**
   * @param delivered called after each run's writes with the events written to browsers, and those a
   * browser could not take (it was dropped as too slow)
   */
  constructor(private readonly delivered: (written: number, dropped: number) => void) {}

  /** Adds a browser; true when the union of pools grew. */
  add(client: C): boolean {
    const key = hashKey(client.pools);
    let bucket = this.groups.get(key);
    let group = bucket?.find((g) => sameSet(g.pools, client.pools));
    let grew = false;
    if (!group) {
      // The first browser's own set stands for the group: nothing is copied per connection.
      group = { pools: client.pools, clients: new Set(), frames: [], bytes: 0 };
      if (!bucket) this.groups.set(key, (bucket = []));
      bucket.push(group);
      for (const pool of client.pools) {
        let set = this.byPool.get(pool);
        if (!set) {
          this.byPool.set(pool, (set = new Set()));
          grew = true;
        }
        set.add(group);
      }
    }
    group.clients.add(client);
    return grew;
  }

  /** Removes a browser; true when the union of pools shrank. */
  remove(client: C): boolean {
    // Found again by its pools rather than remembered per browser: nothing more kept per connection.
    const key = hashKey(client.pools);
    const bucket = this.groups.get(key);
    const at = bucket?.findIndex((g) => g.clients.has(client)) ?? -1;
    const group = bucket?.[at];
    if (!bucket || !group || !group.clients.delete(client)) return false;
    if (group.clients.size > 0) return false;
    bucket.splice(at, 1);
    if (bucket.length === 0) this.groups.delete(key);
    // Frames still queued for it have nobody to go to.
    group.frames = [];
    group.bytes = 0;
    let shrank = false;
    for (const pool of group.pools) {
      const set = this.byPool.get(pool);
      set?.delete(group);
      if (set?.size === 0) {
        this.byPool.delete(pool);
        shrank = true;
      }
    }
    return shrank;
  }

  /** Queues a trade frame for every browser following `pool`; written at the end of the run. */
  publish(pool: string, frame: string, bytes: number): void {
    const groups = this.byPool.get(pool);
    if (!groups) return;
    for (const group of groups) {
      if (group.frames.length === 0) this.dirty.push(group);
      group.frames.push(frame);
      group.bytes += bytes;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      // A bare promise job after the run (queueMicrotask would create an AsyncResource per call).
      void resolved.then(this.flush);
    }
  }

  /**
   * Writes what is queued now. Called at the end of the run, and before anything else is written to
   * a browser (a status, an error), so that it comes after the trades that came before it.
   */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.dirty.length === 0) return;
    const dirty = this.dirty;
    this.dirty = [];
    let written = 0;
    let dropped = 0;
    for (const group of dirty) {
      const { frames, bytes } = group;
      if (frames.length === 0) continue;
      group.frames = [];
      group.bytes = 0;
      const text = frames.length === 1 ? (frames[0] ?? '') : frames.join('');
      // A browser dropped while written to leaves the set: deleting from a Set during its iteration is safe.
      for (const client of group.clients) {
        // At once where the browser can (its socket written in this pass, not queued for another).
        if (client.writeNow ? client.writeNow(text, bytes) : client.write(text, bytes)) written += frames.length;
        else dropped += frames.length;
      }
    }
    this.delivered(written, dropped);
  };
}

/**
 * An order-independent key for a set of pool IDs: its size, and the sum and the XOR of each ID's
 * 32-bit FNV-1a hash. A few dozen bytes per distinct set, where the sorted IDs themselves would take
 * about 3 KB for 50 pools; sets that share a key are told apart by comparing them.
 */
function hashKey(pools: ReadonlySet<string>): string {
  let sum = 0;
  let xor = 0;
  for (const pool of pools) {
    // FNV-1a, 32 bits: offset basis 2166136261 and prime 16777619 (the FNV specification, draft-eastlake-fnv).
    let h = 2166136261;
    for (let i = 0; i < pool.length; i++) h = Math.imul(h ^ pool.charCodeAt(i), 16777619);
    sum = (sum + (h >>> 0)) % 4294967296;
    xor ^= h;
  }
  return `${pools.size}.${sum}.${xor >>> 0}`;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
