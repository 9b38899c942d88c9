import { z } from 'zod';
import { requestSignInLinks } from '../../core/accounts/sign-in-links';
import { getBrand } from '../../core/brands/brand';
import { LOGIN_LINK_TTL_MINUTES, checkLoginLink, redeemLoginLink } from '../../core/dashboard/dashboard-sign-in';
import { inTransaction } from '../../core/db/transaction';
import { warmReports } from '../../core/reports/warm-reports';
import { afterAnswer } from '../after-answer';
import type { Ctx, Middleware } from '../app-context';
import type { ConnectorParts } from '../http/connector';
import { publicUrlOf } from '../config';
import { HttpError } from '../http-error';
import { mailbox } from '../schemas/fields';
import { UUID_PATTERN } from '../middleware/authenticate-api-key';
import { errorAnswer } from '../middleware/error-envelope';
import { dashboardViewer, setSessionCookie } from './dashboard-session';
import { renderPage } from './render-page';

/** The link's brand and token (query on GET, form on POST); a malformed one is refused like an unknown one. */
function linkOf(params: { get(name: string): string | null }): { brandId: string; token: string } {
  const brandId = params.get('brand') ?? '';
  const token = params.get('token') ?? '';
  if (!UUID_PATTERN.test(brandId)) throw new HttpError(400, 'brand must be a brand ID (a UUID): copy the whole link the CLI printed');
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw new HttpError(400, 'token is missing or malformed: copy the whole link the CLI printed');
  return { brandId: brandId.toLowerCase(), token };
}

/** GET /: the overview when signed in (or opened from a platform's admin), else how to sign in. */
export async function rootPage(ctx: Ctx, connectors: readonly ConnectorParts[]): Promise<void> {
  const viewer = await dashboardViewer(ctx, connectors);
  ctx.redirect(viewer ? `/dashboard${ctx.querystring ? `?${ctx.querystring}` : ''}` : '/dashboard/sign-in');
}

/** GET /dashboard/sign-in: the email form (and, after sign-out, that the session ended). */
export function signInHelpPage(ctx: Ctx): void {
  const signedOut = ctx.query.signed_out === '1';
  renderPage(ctx, 'sign-in', {
    title: signedOut ? 'Signed out' : 'Sign in',
    notice: signedOut ? 'You are signed out. Your session has ended on the server too.' : null,
    linkMinutes: LOGIN_LINK_TTL_MINUTES,
  });
}

const signInSchema = z.object({ email: mailbox() });

/**
 * POST /dashboard/sign-in: emails a one-time link to each brand the address belongs to. The answer
 * is the same whether or not it belongs to any (nobody learns who is a user), and so is a request
 * over the address's hourly allowance; the per-IP limit is the route's. The links are made once the
 * answer is sent, so its timing says nothing either (a member's answer took 10.6 ms, a stranger's
 * 4.8 ms, while they were made first); a failure then is logged, and asking again sends a link.
 * Shutdown waits for them.
 */
export async function requestSignIn(ctx: Ctx, form: URLSearchParams): Promise<void> {
  const email = form.get('email') ?? '';
  const parsed = signInSchema.safeParse({ email });
  if (!parsed.success) {
    renderPage(ctx, 'sign-in', { title: 'Sign in', email, refusal: 'email must be an email address, like you@example.com', linkMinutes: LOGIN_LINK_TTL_MINUTES }, 400);
    return;
  }
  const { db, config, logger } = ctx.app.context.deps;
  renderPage(ctx, 'sign-in', { title: 'Check your email', email: parsed.data.email, sent: true, linkMinutes: LOGIN_LINK_TTL_MINUTES });
  afterAnswer(ctx, 'dashboard: sign-in link', async () => {
    const queued = await inTransaction(db, (trx) => requestSignInLinks(trx, parsed.data.email, { publicUrl: publicUrlOf(config), secret: config.keyEncryptionSecret }));
    logger.info({ links: queued }, 'dashboard: sign-in link requested');
  });
}

/**
 * GET /dashboard/login?brand&token: checks the link and asks for one click. Opening the link
 * changes nothing, so a chat app's link preview cannot spend it; the button POSTs it.
 */
export async function loginConfirmPage(ctx: Ctx): Promise<void> {
  const { brandId, token } = linkOf(new URLSearchParams(ctx.querystring));
  const { db } = ctx.app.context.deps;
  const expiresAt = await checkLoginLink(db, brandId, token);
  const brand = await getBrand(db, brandId);
  renderPage(ctx, 'login-confirm', { title: 'Sign in', brandId, brandName: brand.name, token, expiresAt });
}

/** POST /dashboard/login: spends the link, opens a session, sets its cookie, shows the overview. */
export async function login(ctx: Ctx, form: URLSearchParams): Promise<void> {
  const { brandId, token } = linkOf(form);
  const client = { ip: ctx.ip, userAgent: ctx.get('User-Agent') };
  const session = await inTransaction(ctx.app.context.deps.db, (trx) => redeemLoginLink(trx, brandId, token, client));
  setSessionCookie(ctx, session.cookie, session.expires_at);
  const { db, logger, config } = ctx.app.context.deps;
  if (config.warmReportsOnSignIn !== false) {
    // Not awaited: the overview opens while the last 90 (then 366) days' figures are stored.
    warmReports(db, brandId).catch((error) => logger.warn({ err: error, brand_id: brandId }, 'dashboard: storing report days failed'));
  }
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect('/dashboard');
  ctx.status = 303;
}

function pageTitle(status: number, code: string): string {
  if (code === 'login_link_refused') return 'This sign-in link cannot be used';
  if (status === 401) return 'Sign in';
  if (status === 404) return 'Not found';
  return status >= 500 ? 'Something went wrong' : 'That did not work';
}

/** The dashboard's refusals are pages (status, what happened, what to do), not JSON envelopes. */
export const dashboardErrorPage: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    const answer = errorAnswer(ctx, error);
    ctx.set(answer.headers);
    renderPage(
      ctx,
      'message',
      {
        title: pageTitle(answer.status, answer.code),
        message: answer.error,
        code: answer.code,
        status: answer.status,
        linkMinutes: LOGIN_LINK_TTL_MINUTES,
      },
      answer.status,
    );
  }
};
