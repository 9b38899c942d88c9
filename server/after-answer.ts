import type { Ctx } from './app-context';

/** Each app's work still running after its answer was sent (a WeakMap: the app holds no new field). */
const runningByApp = new WeakMap<object, Set<Promise<void>>>();

/**
 * Runs `work` once the answer is sent (the response closes), so the answer's timing says nothing
 * of what the work finds. Shutdown waits for it (afterAnswerSettled) before the database closes; a
 * failure is logged, never thrown at anyone.
 */
export function afterAnswer(ctx: Ctx, what: string, work: () => Promise<void>): void {
  const { logger } = ctx.app.context.deps;
  let running = runningByApp.get(ctx.app);
  if (!running) runningByApp.set(ctx.app, (running = new Set()));
  const set = running;
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  set.add(done);
  ctx.res.once('close', () => {
    work()
      .catch((error: unknown) => logger.error({ err: error }, `${what} failed`))
      .finally(() => {
        set.delete(done);
        release();
      });
  });
}

/** Resolves when every piece of after-answer work the app started has ended. */
export async function afterAnswerSettled(app: object): Promise<void> {
  while (runningByApp.get(app)?.size) await Promise.all(runningByApp.get(app)!);
}
