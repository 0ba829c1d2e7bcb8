import type { Registry } from 'prom-client';

/**
 * Reading Prometheus' text format in tests: the value of one series, named with exactly these labels
 * (undefined when the registry has no such series).
 */
export function seriesValue(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const series = line.slice(0, space);
    const brace = series.indexOf('{');
    const seriesName = brace === -1 ? series : series.slice(0, brace);
    if (seriesName !== name) continue;
    const have =
      brace === -1
        ? []
        : series
            .slice(brace + 1, -1)
            .split(',')
            .filter(Boolean)
            .sort();
    if (have.length === wanted.length && have.every((h, i) => h === wanted[i])) return Number(line.slice(space + 1));
  }
  return undefined;
}

/** The value of one series of a registry (see `seriesValue`). */
export async function registryValue(
  registry: Registry,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number | undefined> {
  return seriesValue(await registry.metrics(), name, labels);
}
