import type { Session, Shopify } from '@shopify/shopify-api';
import { NotFound } from '../../core/errors';
import type { KnexSessionStorage } from './session-storage';

/** Renew an access token this long before it expires, so no call meets an expired one. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/** A session the Admin API will accept for a while yet. */
function usable(session: Session | undefined): boolean {
  return Boolean(session?.accessToken && session.expires && !session.isExpired(REFRESH_MARGIN_MS));
}

/**
 * The public app's offline session with a usable token: refreshed before it expires, and a legacy
 * non-expiring token swapped for an expiring one (non-expiring tokens stop working on 2027-01-01).
 */
export async function freshOfflineSession(shopify: Shopify, storage: KnexSessionStorage, shop: string): Promise<Session> {
  const session = await storage.loadSession(shopify.session.getOfflineId(shop));
  if (!session?.accessToken) throw new NotFound(`no Shopify session for ${shop}: install the app again`);
  if (usable(session)) return session;
  return renewSession(shopify, storage, session);
}

/** Refreshes (or migrates) a public-app session now and stores the result; one renewal per shop. */
export function renewSession(shopify: Shopify, storage: KnexSessionStorage, session: Session): Promise<Session> {
  return renewOnce(storage, session, async (stored) => {
    if (!stored?.accessToken) throw new NotFound(`no Shopify session for ${session.shop}: install the app again`);
    if (!stored.expires) {
      return (await shopify.auth.migrateToExpiringToken({ shop: stored.shop, nonExpiringOfflineAccessToken: stored.accessToken })).session;
    }
    if (!stored.refreshToken) throw new NotFound(`the Shopify session for ${stored.shop} expired and has no refresh token: install the app again`);
    return (await shopify.auth.refreshToken({ shop: stored.shop, refreshToken: stored.refreshToken })).session;
  });
}

/**
 * A Dev Dashboard app's session (`shopify connect --client-id`): a new 24-hour token by the
 * client-credentials grant whenever the stored one is missing or about to expire.
 */
export async function freshClientCredentialsSession(shopify: Shopify, storage: KnexSessionStorage, shop: string): Promise<Session> {
  const id = shopify.session.getOfflineId(shop);
  const session = await storage.loadSession(id);
  if (session && usable(session)) return session;
  return renewOnce(storage, { id, shop, accessToken: session?.accessToken }, async () => (await shopify.auth.clientCredentials({ shop })).session);
}

/**
 * One renewal per shop even when several processes ask at once: under the shop's lock the stored
 * session is read again, and if another process already replaced the token we saw, its session is
 * used (a refresh token works once; Shopify rate-limits token requests).
 */
async function renewOnce(
  storage: KnexSessionStorage,
  seen: Pick<Session, 'id' | 'shop' | 'accessToken'>,
  obtain: (stored: Session | undefined) => Promise<Session>,
): Promise<Session> {
  return storage.exclusively(seen.shop, async (locked) => {
    const stored = await locked.loadSession(seen.id);
    if (stored?.accessToken && stored.accessToken !== seen.accessToken) return stored;
    const renewed = await obtain(stored);
    await locked.storeSession(renewed);
    return renewed;
  });
}
