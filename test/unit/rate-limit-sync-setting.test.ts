import { loadConfig } from '../../server/config';

const env = (extra: Record<string, string>) => ({ KEY_ENCRYPTION_SECRET: 'secret', ...extra });

describe('RATE_LIMIT_SYNC_MS', () => {
  it('defaults to 200 ms and takes 0 (exact mode) or any whole number of milliseconds', () => {
    expect(loadConfig(env({})).rateLimitSyncMs).toBe(200);
    expect(loadConfig(env({ RATE_LIMIT_SYNC_MS: '0' })).rateLimitSyncMs).toBe(0);
    expect(loadConfig(env({ RATE_LIMIT_SYNC_MS: '50' })).rateLimitSyncMs).toBe(50);
  });

  it.each(['-1', '0.5', 'fast'])('refuses %s, naming the variable', (raw) => {
    expect(() => loadConfig(env({ RATE_LIMIT_SYNC_MS: raw }))).toThrow(`RATE_LIMIT_SYNC_MS must be a whole number of milliseconds (0 or more), got "${raw}"`);
  });
});
