import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_KEY_FILE } from '../../src/service/auth/dev-key';
import { API, createTestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';

describe('the dev key', () => {
  it('is made on a first start without any key: saved in the data directory, printed, enterprise plan', async () => {
    const lines: string[] = [];
    const service = await createTestService({ days: 1, env: { TOKEN_API_KEYS: '' }, log: (line) => lines.push(line) });
    try {
      const key = runtimeInternals(service.runtime).devKey;
      expect(key).toMatch(/^cdx_[A-Za-z0-9_-]{43}$/);
      const file = join(service.dataDir, DEV_KEY_FILE);
      expect(readFileSync(file, 'utf8')).toBe(`${key}\n`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(lines.filter((line) => line.includes(key ?? '-'))).toHaveLength(1);
      const response = await service.request(`${API}/groups`, { key: key ?? null });
      expect(response.status).toBe(200);
      expect(response.headers.get('RateLimit-Limit')).toBe('6000');

      // A restart keeps it: no second key, nothing printed again.
      lines.length = 0;
      const again = await service.restart({ env: { TOKEN_API_KEYS: '' }, log: (line) => lines.push(line) });
      try {
        expect(runtimeInternals(again.runtime).devKey).toBe(key);
        expect(await runtimeInternals(again.runtime).keyStore.list()).toHaveLength(1);
        expect(lines.join('\n')).not.toContain(key);
      } finally {
        await again.close();
      }
    } catch (error) {
      await service.close();
      throw error;
    }
  });

  it('is not made when keys are configured', async () => {
    const service = await createTestService({ days: 1 });
    try {
      expect(runtimeInternals(service.runtime).devKey).toBeUndefined();
      expect(existsSync(join(service.dataDir, DEV_KEY_FILE))).toBe(false);
      expect(await runtimeInternals(service.runtime).keyStore.list()).toHaveLength(0);
    } finally {
      await service.close();
    }
  });
});
