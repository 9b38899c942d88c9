import { ZodError } from 'zod';
import { DomainError } from '../../core/errors';
import type { Ctx } from '../app-context';
import { errorAnswer } from '../middleware/error-envelope';
import { checkCsrf } from './dashboard-session';

/**
 * POST-redirect-GET: 303 to the page that shows the change, with the embedded admin's context (and
 * the request's own one-minute session token, so the next GET is signed in there too).
 */
export function seeOther(ctx: Ctx, path: string, params: Record<string, string | number | undefined> = {}): void {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') query.set(name, String(value));
  const { embedded } = ctx.state.viewer!;
  if (embedded) {
    query.set('embedded', '1');
    query.set('shop', embedded.shop);
    for (const name of ['host', 'id_token']) if (typeof ctx.query[name] === 'string') query.set(name, ctx.query[name] as string);
  }
  const text = query.toString();
  ctx.redirect(text ? `${path}?${text}` : path);
  ctx.status = 303;
}

/**
 * Runs a dashboard form: CSRF first (a forged post changes nothing and says so, 403), then the
 * action; a refusal the merchant can act on (400, 404, 409) is shown on the form's own page,
 * with its status, by `refused` — never a crash, never a partial write (each action is one use case).
 */
export async function runForm(
  ctx: Ctx,
  form: URLSearchParams,
  action: () => Promise<void>,
  refused: (status: number, message: string) => Promise<void>,
): Promise<void> {
  checkCsrf(ctx, form);
  try {
    await action();
  } catch (error) {
    if (!(error instanceof DomainError || error instanceof ZodError)) throw error;
    const answer = errorAnswer(ctx, error);
    if (![400, 404, 409, 422].includes(answer.status)) throw error;
    await refused(answer.status, answer.error);
  }
}
