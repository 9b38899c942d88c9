import type { Session, Shopify } from '@shopify/shopify-api';
import { NotFound } from '../../core/errors';
import type { KnexSessionStorage } from './session-storage';

/** Refresh an expiring access token this long before it expires, so no call meets an expired one. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

// One refresh per shop at a time in this process: refresh tokens rotate, a second concurrent
// refresh with the same old token would be refused.
const inFlight = new Map<string, Promise<Session>>();

/**
 * The shop's offline session with a usable token: refreshed before it expires, and a legacy
 * non-expiring token swapped for an expiring one (non-expiring tokens stop working on 2027-01-01).
 */
export async function freshOfflineSession(shopify: Shopify, storage: KnexSessionStorage, shop: string): Promise<Session> {
  const session = await storage.loadSession(shopify.session.getOfflineId(shop));
  if (!session?.accessToken) throw new NotFound(`no Shopify session for ${shop}: install the app again`);
  if (session.expires && !session.isExpired(REFRESH_MARGIN_MS)) return session;
  return renewSession(shopify, storage, session);
}

/** Refreshes (or migrates) a session now and stores the result; one renewal per shop at a time. */
export function renewSession(shopify: Shopify, storage: KnexSessionStorage, session: Session): Promise<Session> {
  const pending = inFlight.get(session.shop);
  if (pending) return pending;
  const renewal = renew(shopify, storage, session).finally(() => inFlight.delete(session.shop));
  inFlight.set(session.shop, renewal);
  return renewal;
}

async function renew(shopify: Shopify, storage: KnexSessionStorage, session: Session): Promise<Session> {
  const { session: renewed } = session.expires
    ? await refresh(shopify, session)
    : await shopify.auth.migrateToExpiringToken({ shop: session.shop, nonExpiringOfflineAccessToken: session.accessToken! });
  await storage.storeSession(renewed);
  return renewed;
}

function refresh(shopify: Shopify, session: Session): Promise<{ session: Session }> {
  if (!session.refreshToken) throw new NotFound(`the Shopify session for ${session.shop} expired and has no refresh token: install the app again`);
  return shopify.auth.refreshToken({ shop: session.shop, refreshToken: session.refreshToken });
}
