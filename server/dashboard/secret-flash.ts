import { decryptSecret, encryptSecret } from '../../core/brands/key-encryption';
import type { Ctx } from '../app-context';

/**
 * A new secret (an endpoint's signing secret, an API key), carried across the add form's redirect
 * to the one GET that shows it: an HttpOnly cookie for that page only, encrypted with the server's key (AES-256-GCM, like
 * stored secrets), five minutes at most, cleared by the page that shows it. So the add form is
 * POST-redirect-GET (a reload cannot add a second endpoint) and the secret never travels in a URL.
 */
const COOKIE = 'referrals_new_secret';
const MAX_AGE_MS = 5 * 60_000;

interface Flashed {
  brand_id: string;
  id: string;
  /** What it is for: the endpoint's URL, the key's label. */
  url: string;
  secret: string;
}

export function flashSecret(ctx: Ctx, created: Flashed, path = '/dashboard/connections'): void {
  const sealed = encryptSecret(JSON.stringify(created), ctx.app.context.deps.config.keyEncryptionSecret);
  ctx.cookies.set(COOKIE, sealed, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path, maxAge: MAX_AGE_MS, overwrite: true });
}

/** The secret of endpoint `id` of this brand, once: the cookie is cleared whether it matched or not. */
export function takeFlashedSecret(ctx: Ctx, brandId: string, id: string | undefined, path = '/dashboard/connections'): Flashed | null {
  const sealed = ctx.cookies.get(COOKIE);
  if (!sealed) return null;
  ctx.cookies.set(COOKIE, '', { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path, expires: new Date(0), overwrite: true });
  try {
    const flashed = JSON.parse(decryptSecret(sealed, ctx.app.context.deps.config.keyEncryptionSecret)) as Flashed;
    return flashed.brand_id === brandId && flashed.id === id ? flashed : null;
  } catch {
    return null;
  }
}
