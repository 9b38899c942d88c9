import { loadConfig } from '../../server/config';

const env = (extra: Record<string, string>) => ({ KEY_ENCRYPTION_SECRET: 'secret', ...extra });

describe('DASHBOARD_WARM_REPORTS', () => {
  it('is on unless set to false', () => {
    expect(loadConfig(env({})).warmReportsOnSignIn).toBe(true);
    expect(loadConfig(env({ DASHBOARD_WARM_REPORTS: 'true' })).warmReportsOnSignIn).toBe(true);
    expect(loadConfig(env({ DASHBOARD_WARM_REPORTS: 'false' })).warmReportsOnSignIn).toBe(false);
  });

  it.each(['no', '0', 'TRUE'])('refuses %s, naming the variable', (raw) => {
    expect(() => loadConfig(env({ DASHBOARD_WARM_REPORTS: raw }))).toThrow(`DASHBOARD_WARM_REPORTS must be true or false, got "${raw}"`);
  });
});
