// globalSetup and globalTeardown run in jest's main process; a global carries the work between them.
const WORK = Symbol.for('referrals.test.backgroundWork');
type WithWork = typeof globalThis & { [WORK]?: Promise<unknown> };

/** globalSetup: work that goes on while the tests run (its child processes write into the run's folder). */
export function setBackgroundWork(work: Promise<unknown>): void {
  (globalThis as WithWork)[WORK] = work;
}

/** globalTeardown: waits for it before the run's folder is removed under it. */
export async function backgroundWorkSettled(): Promise<void> {
  await (globalThis as WithWork)[WORK];
}
