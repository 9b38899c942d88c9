import type { Ctx } from '../app-context';

/** GET /healthz: the process is up. */
export async function healthz(ctx: Ctx): Promise<void> {
  ctx.body = { success: true, data: { status: 'ok' } };
}

/** GET /readyz: the database answers. */
export async function readyz(ctx: Ctx): Promise<void> {
  try {
    await ctx.app.context.deps.db.raw('select 1');
    ctx.body = { success: true, data: { status: 'ready' } };
  } catch (error) {
    ctx.status = 503;
    ctx.body = { success: false, error: `database unreachable: ${(error as Error).message}` };
  }
}
