import type { JwtPayload } from '@shopify/shopify-api';
import { type Ctx, type EmbeddedSession, HttpError } from '../../server/http';
import { findShopLink } from './shop-links';
import { type ShopifyAppConfig, normalizeShopDomain } from './shopify-config';
import { publicShopifyApp } from './shopify-library';

/** Shopify's own runtime for embedded apps: it must be loaded from Shopify's CDN, first. */
export const APP_BRIDGE_SCRIPT = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';

/** The session token App Bridge sends: `Authorization: Bearer …`, or `id_token` on the admin's first load. */
function sessionToken(ctx: Ctx): string | null {
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
  if (bearer) return bearer[1]!;
  return typeof ctx.query.id_token === 'string' && ctx.query.id_token !== '' ? ctx.query.id_token : null;
}

const refuse = (why: string) => new HttpError(401, `the Shopify session token was refused: ${why}. Open the app again from the Shopify admin.`, {}, 'session_required');

/**
 * The dashboard opened inside the Shopify admin: the session token (an HS256 JWT signed with the
 * app's secret, for our API key) is verified by the Shopify library, and its `dest` shop must be
 * linked to a brand and installed. Requests without a token are not ours to judge (null).
 */
export async function shopifyEmbeddedSession(ctx: Ctx, app: ShopifyAppConfig | null): Promise<EmbeddedSession | null> {
  const token = sessionToken(ctx);
  if (token === null) return null;
  if (!app) throw refuse('the Shopify app is not configured on this server (SHOPIFY_API_KEY, SHOPIFY_API_SECRET, SHOPIFY_APP_URL)');
  let payload: JwtPayload;
  try {
    payload = await publicShopifyApp(app).session.decodeSessionToken(token);
  } catch {
    // The library's message repeats the token: say why without it.
    throw refuse('its signature, audience or lifetime is not valid for this app');
  }
  const dest = normalizeShopDomain(URL.canParse(payload.dest) ? new URL(payload.dest).host : null);
  const issuer = URL.canParse(payload.iss) ? new URL(payload.iss).host : null;
  if (!dest || issuer !== dest) throw refuse('its shop (dest) is not a shop domain matching its issuer');
  const link = await findShopLink(ctx.app.context.deps.db, dest);
  if (!link || link.status !== 'installed') {
    throw new HttpError(403, `the shop ${dest} is not connected to a brand here: install the app from the Shopify admin first`, {}, 'forbidden');
  }
  return {
    brand_id: link.brand_id,
    shop: dest,
    user: payload.sub ? `shopify user ${payload.sub}` : undefined,
    frame_ancestors: [`https://${dest}`, 'https://admin.shopify.com'],
    runtime_script: APP_BRIDGE_SCRIPT,
    runtime_meta: { 'shopify-api-key': app.apiKey },
  };
}
