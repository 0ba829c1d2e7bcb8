/**
 * What each client address holds of the gateway's live capacity: its connections, and the distinct
 * pools they follow (a pool that several of its connections follow counts once, as it goes upstream
 * once). The live hub refuses a connection that would take an address past its share.
 */
export class AddressShares {
  private readonly connections = new Map<string, number>();
  /** Per address: pool → how many of its connections follow it. */
  private readonly pools = new Map<string, Map<string, number>>();

  connectionsOf(address: string): number {
    return this.connections.get(address) ?? 0;
  }

  /** Distinct pools the address follows. */
  poolsOf(address: string): number {
    return this.pools.get(address)?.size ?? 0;
  }

  /** How many distinct pools the address would follow with `pools` too. */
  poolsWith(address: string, pools: Iterable<string>): number {
    const own = this.pools.get(address);
    let count = own?.size ?? 0;
    for (const pool of pools) if (!own?.has(pool)) count++;
    return count;
  }

  add(address: string, pools: Iterable<string>): void {
    this.connections.set(address, this.connectionsOf(address) + 1);
    let own = this.pools.get(address);
    if (!own) this.pools.set(address, (own = new Map()));
    for (const pool of pools) own.set(pool, (own.get(pool) ?? 0) + 1);
  }

  remove(address: string, pools: Iterable<string>): void {
    const left = this.connectionsOf(address) - 1;
    if (left > 0) this.connections.set(address, left);
    else this.connections.delete(address);
    const own = this.pools.get(address);
    if (!own) return;
    for (const pool of pools) {
      const count = (own.get(pool) ?? 0) - 1;
      if (count > 0) own.set(pool, count);
      else own.delete(pool);
    }
    if (own.size === 0) this.pools.delete(address);
  }
}

/**
 * Pools one address may follow of an upstream budget of `budget`: `sharePercent` of it, rounded up,
 * but never less than one connection's pools (`perConnection`, within the budget), so that the share
 * never refuses a browser the gateway would serve were it alone (a small upstream plan: 10 pools).
 */
export function addressCap(budget: number, sharePercent: number, perConnection: number): number {
  if (!Number.isFinite(budget)) return budget;
  return Math.max(Math.ceil((budget * sharePercent) / 100), Math.min(perConnection, budget));
}
