import { splitPeriod } from '../../core/reports/report-days';
import { customPeriod, lastDays } from '../../core/reports/period';

const at = (iso: string) => new Date(iso);

describe('where stored report figures end', () => {
  it('splits the last 7 days at 14:20 UTC into 6 stored days, 13 stored hours of today and the last 1 h 20 min live', () => {
    const now = at('2026-11-23T14:20:00Z');
    expect(splitPeriod(lastDays(7, now), now)).toEqual({
      days: { from: at('2026-11-17T00:00:00Z'), to: at('2026-11-23T00:00:00Z') },
      hours: { from: at('2026-11-23T00:00:00Z'), to: at('2026-11-23T13:00:00Z') },
      live: { from: at('2026-11-23T13:00:00Z'), to: at('2026-11-24T00:00:00Z') },
    });
  });

  it('keeps yesterday live until an hour after midnight, and stores no hour of today yet', () => {
    const now = at('2026-11-23T00:30:00Z');
    expect(splitPeriod(lastDays(7, now), now)).toEqual({
      days: { from: at('2026-11-17T00:00:00Z'), to: at('2026-11-22T00:00:00Z') },
      hours: { from: at('2026-11-22T00:00:00Z'), to: at('2026-11-22T23:00:00Z') },
      live: { from: at('2026-11-22T23:00:00Z'), to: at('2026-11-24T00:00:00Z') },
    });
  });

  it('stores every day of a custom period that ended long ago, and computes nothing live', () => {
    const now = at('2026-11-23T14:20:00Z');
    expect(splitPeriod(customPeriod('2026-01-01', '2026-01-31'), now)).toEqual({
      days: { from: at('2026-01-01T00:00:00Z'), to: at('2026-02-01T00:00:00Z') },
      hours: null,
      live: null,
    });
  });
});
