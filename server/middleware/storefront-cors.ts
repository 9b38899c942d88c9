import type { Middleware } from '../app-context';

/** What a storefront page's request may carry. */
const ALLOWED_HEADERS = 'Content-Type, X-API-Key, X-Brand-ID';

/**
 * The routes a storefront page calls with the brand's publishable key (docs/merchants/storefront.md): they
 * accept a `pk_` key, answer the browser's CORS preflight, and let the page read the answer when
 * it came from one of the brand's origins. A preflight carries no key or brand, so it is answered
 * for any origin; the request itself is refused (403) from an origin the brand did not allow
 * (authenticateApiKey), and then carries no CORS header, so the page cannot read even the refusal.
 */
export const acceptPublishableKey: Middleware = async (ctx, next) => {
  const origin = ctx.get('Origin');
  if (ctx.method === 'OPTIONS') {
    ctx.set({
      'Access-Control-Allow-Origin': origin || '*',
      'Access-Control-Allow-Methods': 'POST',
      'Access-Control-Allow-Headers': ALLOWED_HEADERS,
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
    });
    ctx.status = 204;
    return;
  }
  ctx.state.acceptsPublishableKey = true;
  try {
    await next();
  } finally {
    // A refusal after authentication (a bad field, a flood) is readable by the brand's page too.
    if (origin && ctx.state.brand?.allowed_origins.includes(origin)) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.vary('Origin');
    }
  }
};
