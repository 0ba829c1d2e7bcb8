import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogHook } from '../../node/log';
import type { ServiceConfig } from '../config';
import type { KeyRing, KeyStore } from './keys';

/** File (in the data directory) holding the dev key created on a first start without keys. */
export const DEV_KEY_FILE = 'dev-api-key.txt';

/**
 * With no key configured at all, the first start creates a dev key (enterprise plan), saves it in the
 * data directory and prints it. Returns the dev key when there is one.
 */
export async function resolveDevKey(
  config: ServiceConfig,
  store: KeyStore,
  keys: KeyRing,
  log?: LogHook,
): Promise<string | undefined> {
  const file = config.dataDir === ':memory:' ? undefined : join(config.dataDir, DEV_KEY_FILE);
  if (file && existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (await keys.authenticate(saved)) return saved;
  }
  if ((await keys.size()) === 0) {
    const { key } = await store.create('enterprise', 'dev');
    if (file) writeFileSync(file, `${key}\n`, { mode: 0o600 });
    log?.(`Created a dev API key (enterprise plan)${file ? `, saved in ${file}` : ''}:\n\n    ${key}\n`);
    return key;
  }
  return undefined;
}
