import { WindowCounts, countOf, decide } from '../../server/rate-limits/window-counts';

const MINUTE = 60_000;
const T0 = 1_800_000_000_000;

/** Counts `n` requests on `key` at `now` and returns the last one's count. */
function addMany(counts: WindowCounts, key: string, n: number, now = T0): number {
  let last = 0;
  for (let i = 0; i < n; i += 1) last = countOf(counts.add(key, MINUTE, now).window);
  return last;
}

describe('decide', () => {
  it('allows up to the limit and refuses past it, with what remains and whole seconds to the reset', () => {
    expect(decide(3, 3, T0 + 59_001, T0)).toEqual({ allowed: true, limit: 3, remaining: 0, resetSeconds: 60 });
    expect(decide(3, 1, T0 + 60_000, T0)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    expect(decide(3, 4, T0 + 1_500, T0)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 2 });
  });

  it('never says 0 seconds: a window ending now resets in 1', () => {
    expect(decide(3, 4, T0, T0).resetSeconds).toBe(1);
  });
});

describe('WindowCounts', () => {
  it('counts each key on its own, in a window starting at its first request', () => {
    const counts = new WindowCounts();
    expect(addMany(counts, 'claim:a', 3)).toBe(3);
    expect(addMany(counts, 'claim:b', 1, T0 + 10_000)).toBe(1);
    expect(counts.add('claim:b', MINUTE, T0 + 10_000).window.endsAt).toBe(T0 + 70_000);
    expect(counts.add('claim:a', MINUTE, T0 + 10_000).window.endsAt).toBe(T0 + 60_000);
  });

  it('starts again at 1 once the window has ended, dropping what the old one had not sent', () => {
    const counts = new WindowCounts();
    addMany(counts, 'visit:a', 5);
    const { window, ticket } = counts.add('visit:a', MINUTE, T0 + MINUTE);
    expect([countOf(window), ticket, window.endsAt]).toEqual([1, 1, T0 + 2 * MINUTE]);
    expect(counts.take().map((sent) => [sent.key, sent.delta])).toEqual([['visit:a', 1]]);
  });

  it('sends each touched key once per sync with the requests since the last one', () => {
    const counts = new WindowCounts();
    addMany(counts, 'claim:a', 2);
    addMany(counts, 'claim:b', 1);
    expect(counts.take().map(({ key, delta, fresh, endsAt }) => ({ key, delta, fresh, endsAt }))).toEqual([
      { key: 'claim:a', delta: 2, fresh: 2, endsAt: T0 + MINUTE },
      { key: 'claim:b', delta: 1, fresh: 1, endsAt: T0 + MINUTE },
    ]);
    expect(counts.hasUnsent()).toBe(false);
    expect(counts.take()).toEqual([]);
  });

  it('after a sync counts the shared total (every replica) plus the requests that came while it ran', () => {
    const counts = new WindowCounts();
    addMany(counts, 'claim:a', 2);
    const sent = counts.take();
    expect(addMany(counts, 'claim:a', 1)).toBe(3); // 2 in flight + 1 new
    // Another replica had counted 7: the store returns 9, and the window it started.
    counts.settle(sent, [{ key: 'claim:a', points: 9, expire: T0 + 30_000 }]);
    const { window } = counts.add('claim:a', MINUTE, T0 + 1);
    expect(countOf(window)).toBe(11); // 9 shared + the 1 unsent before + this one
    expect(window.endsAt).toBe(T0 + 30_000);
  });

  it('keeps counting the requests of a failed sync and sends them again with the next one', () => {
    const counts = new WindowCounts();
    addMany(counts, 'claim:a', 3);
    const failed = counts.take();
    addMany(counts, 'claim:a', 1);
    counts.restore(failed);
    expect(countOf(counts.add('claim:a', MINUTE, T0).window)).toBe(5);
    // The retry carries the 3 first, then the 2 fresh ones (numbered 1 and 2).
    expect(counts.take().map(({ delta, fresh }) => ({ delta, fresh }))).toEqual([{ delta: 5, fresh: 2 }]);
  });

  it('sends again a key the store did not return', () => {
    const counts = new WindowCounts();
    addMany(counts, 'claim:a', 2);
    addMany(counts, 'claim:b', 1);
    counts.settle(counts.take(), [{ key: 'claim:b', points: 4, expire: T0 + MINUTE }]);
    expect(counts.take().map(({ key, delta }) => [key, delta])).toEqual([['claim:a', 2]]);
  });

  it('numbers the requests of one batch so each can be placed after the total before it', () => {
    const counts = new WindowCounts();
    expect([1, 2, 3].map(() => counts.add('convert:a', MINUTE, T0).ticket)).toEqual([1, 2, 3]);
    counts.take();
    expect(counts.add('convert:a', MINUTE, T0).ticket).toBe(1);
  });
});
