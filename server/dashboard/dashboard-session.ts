import { type MerchantRole, type MerchantUser, getUser, roleAtLeast } from '../../core/accounts/merchant-users';
import type { Brand } from '../../core/brands/brand';
import { getBrand } from '../../core/brands/brand';
import { endSession, findSession, sameToken } from '../../core/dashboard/dashboard-sign-in';
import type { Ctx, Middleware } from '../app-context';
import type { ConnectorParts, EmbeddedSession } from '../http/connector';
import { HttpError } from '../http-error';
import { UUID_PATTERN } from '../middleware/authenticate-api-key';

export const SESSION_COOKIE = 'referrals_dashboard';

/** Who is looking at the dashboard: a brand, signed in by a one-time link (cookie) or from inside a platform's admin. */
export interface DashboardViewer {
  brand: Brand;
  /** The session's synchronizer token; null in embedded mode (no cookie, nothing ambient to forge). */
  csrfToken: string | null;
  embedded: EmbeddedSession | null;
  /** The merchant user signed in; null for the operator's CLI link and the platform's admin. */
  user: MerchantUser | null;
  /**
   * What they may do: a user's role; owner for the operator's CLI link and inside a platform's
   * admin (where the platform's own staff permissions decide who opens the app).
   */
  role: MerchantRole;
  /** Who they are in the audit log. */
  actor: string;
  /** Their cookie session's stored hash (the sessions page marks it); null when embedded. */
  sessionHash: string | null;
}

const isBrandId = (value: string) => UUID_PATTERN.test(value);

/**
 * The cookie's attributes: HttpOnly and SameSite=Lax always; Secure whenever the request came over
 * HTTPS (directly, or through a proxy trusted by TRUST_PROXY) — plain HTTP only reaches us from
 * loopback (require-https), a developer's own machine, where a Secure cookie would not be sent back.
 */
export function setSessionCookie(ctx: Ctx, value: string, expires: Date): void {
  ctx.cookies.set(SESSION_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, expires, path: '/', overwrite: true });
}

export function clearSessionCookie(ctx: Ctx): void {
  ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: ctx.secure, expires: new Date(0), path: '/', overwrite: true });
}

/** The viewer of this request, or null: a platform's embedded session first, else the session cookie. */
export async function dashboardViewer(ctx: Ctx, connectors: readonly ConnectorParts[]): Promise<DashboardViewer | null> {
  const { db } = ctx.app.context.deps;
  for (const connector of connectors) {
    const embedded = await connector.dashboard?.embeddedSession?.(ctx);
    if (embedded) {
      const actor = embedded.user ? `${embedded.user} (${embedded.shop})` : embedded.shop;
      return { brand: await getBrand(db, embedded.brand_id), csrfToken: null, embedded, user: null, role: 'owner', actor, sessionHash: null };
    }
  }
  const cookie = ctx.cookies.get(SESSION_COOKIE);
  if (!cookie) return null;
  const session = await findSession(db, cookie, isBrandId);
  if (!session) return null;
  const user = session.user_id === null ? null : await getUser(db, session.brand_id, session.user_id);
  return {
    brand: await getBrand(db, session.brand_id),
    csrfToken: session.csrf_token,
    embedded: null,
    user,
    role: user?.role ?? 'owner',
    actor: user?.email ?? 'operator (CLI sign-in link)',
    sessionHash: session.session_hash,
  };
}

/**
 * The viewer must hold at least `least` (checked on the server for every form, whatever the page
 * showed): a viewer's post is a 403 that changes nothing.
 */
export function requireRole(least: MerchantRole): Middleware {
  return async (ctx, next) => {
    const { role } = ctx.state.viewer!;
    if (!roleAtLeast(role, least)) {
      throw new HttpError(403, `Your role (${role}) cannot do this: it needs ${least === 'owner' ? 'an owner' : 'an admin or owner'}. Ask an owner of the brand.`, {}, 'role_required');
    }
    return next();
  };
}

/** The signed-in viewer, required: without one the page answers 401 with how to sign in. */
export function requireViewer(connectors: readonly ConnectorParts[]): Middleware {
  return async (ctx, next) => {
    const viewer = await dashboardViewer(ctx, connectors);
    if (!viewer) {
      throw new HttpError(401, 'You are not signed in (or your session ended). Sign in with your email address: we email you a one-time link.', {}, 'session_required');
    }
    ctx.state.viewer = viewer;
    return next();
  };
}

/**
 * A form posted by a cookie session must carry that session's CSRF token (synchronizer token
 * pattern). An embedded viewer was authenticated by a session token the request itself carries
 * (nothing ambient a forged form could ride on), so its posts need none.
 */
export function checkCsrf(ctx: Ctx, form: URLSearchParams): void {
  const viewer = ctx.state.viewer!;
  if (viewer.embedded) return;
  const given = form.get('csrf_token') ?? '';
  if (viewer.csrfToken === null || !sameToken(viewer.csrfToken, given)) {
    throw new HttpError(403, 'This form was not sent from your dashboard session (its CSRF token is missing or wrong). Reload the page and try again.', {}, 'csrf_rejected');
  }
}

/** POST /dashboard/logout: ends the session (CSRF-checked) and drops the cookie. */
export async function logout(ctx: Ctx, form: URLSearchParams): Promise<void> {
  checkCsrf(ctx, form);
  const cookie = ctx.cookies.get(SESSION_COOKIE);
  if (cookie) await endSession(ctx.app.context.deps.db, cookie, isBrandId);
  clearSessionCookie(ctx);
  ctx.redirect('/dashboard/sign-in?signed_out=1');
  ctx.status = 303;
}
