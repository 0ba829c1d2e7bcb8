import { existsSync, readFileSync } from 'node:fs';

/**
 * The API key the e2e server is configured with (TOKEN_API_KEYS in playwright.config.ts): a real,
 * working secret the browser must never see. Its plan is enterprise (6,000 requests a minute): the
 * remote-flows gateway asks everything of every flow upstream with this one key, and on a fast machine
 * the flows one after another passed pro's 600 a minute (429s mid-flow, flow 16's CI failure).
 */
export const E2E_API_KEY = 'e2e-secret-key-0123456789';
export const E2E_API_KEYS = `${E2E_API_KEY}:enterprise`;

/** The e2e server's data directory (playwright.config.ts). */
export const E2E_DATA_DIR = '.data-e2e';

/** The `vite preview` server's data directory (no key configured: it makes a dev key there). */
export const PREVIEW_DATA_DIR = '.data-e2e-preview';

/** Keys this implementation generates (the dev key, the gateway's internal key) all look like this. */
export const GENERATED_KEY = /cdx_[A-Za-z0-9_-]{8,}/;

/** The dev key of a data directory, when the server created one (only when no key is configured). */
export function devKeyOf(dataDir: string): string | undefined {
  const file = `${dataDir}/dev-api-key.txt`;
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
}

/** Every secret found in `text` (by value or by shape), with where it was. */
export function secretsIn(text: string, where: string, secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const secret of secrets)
    if (text.includes(secret)) found.push(`${where}: contains the key ${secret.slice(0, 8)}…`);
  const generated = GENERATED_KEY.exec(text);
  if (generated) found.push(`${where}: contains a generated key ${generated[0].slice(0, 8)}…`);
  if (/\bBearer\s+\S/i.test(text)) found.push(`${where}: contains a Bearer credential`);
  return found;
}
