import type { Ctx } from '../app-context';
import { HttpError } from '../http-error';

/**
 * Refuses a POST another site's page made (login CSRF: a victim signed into the attacker's brand).
 * Browsers say where a request comes from: `Sec-Fetch-Site` (same-origin for our own forms), else
 * `Origin`, which must be this server's (as the request reached it, or PUBLIC_URL). A request with
 * neither header did not come from a browser's cross-site form (curl, an old client): allowed.
 */
export function requireSameOriginPost(ctx: Ctx): void {
  const site = ctx.get('Sec-Fetch-Site');
  if (site) {
    if (site === 'same-origin' || site === 'none') return;
    throw refuse(`Sec-Fetch-Site: ${site}`);
  }
  const origin = ctx.get('Origin');
  if (!origin) return;
  const publicUrl = ctx.app.context.deps.config.publicUrl;
  // Our own origin as the request reached us (Koa 3's ctx.origin is the Origin header itself).
  const ours = new Set([`${ctx.protocol}://${ctx.host}`, ...(publicUrl ? [new URL(publicUrl).origin] : [])]);
  if (!ours.has(origin)) throw refuse(`Origin: ${origin}`);
}

const refuse = (seen: string) =>
  new HttpError(403, `This sign-in was sent from another site (${seen}), so it was refused. Open the sign-in link itself and press Sign in.`, {}, 'csrf_rejected');
