import { flood, FLOOD_PER_MINUTE } from './cache-flood';

/**
 * One flooding address in a process of its own (`node --import tsx bench/cache-flood-client.ts
 * <origin> <local address> <seconds>`): the attacker's work — sending, and reading megabytes of
 * answers — stays out of the measuring client's event loop. Prints its tally as one JSON line at the end.
 */
async function main(): Promise<void> {
  const [origin, address, seconds] = process.argv.slice(2);
  if (!origin || !address || !seconds) throw new Error('usage: cache-flood-client.ts <origin> <address> <seconds>');
  const stop = flood(origin, address, FLOOD_PER_MINUTE);
  await new Promise((resolve) => setTimeout(resolve, Number(seconds) * 1000));
  console.log(JSON.stringify(await stop()));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
