import type { Ctx } from '../app-context';

/** The success envelope `{success: true, data}`, with its status (200 unless said). */
export function answer(ctx: Ctx, data: unknown, status = 200): void {
  ctx.status = status;
  ctx.body = { success: true, data };
}
