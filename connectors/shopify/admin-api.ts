import type { Session, Shopify } from '@shopify/shopify-api';
import { decryptSecret } from '../../core/brands/key-encryption';
import type { Executor } from '../../core/db/transaction';
import { Invalid, NotFound } from '../../core/errors';
import { findClientId } from './client-credentials';
import { freshClientCredentialsSession, freshOfflineSession } from './fresh-session';
import { type QueryCost, QueryThrottle } from './query-throttle';
import { KnexSessionStorage } from './session-storage';
import { type ShopifyAppConfig } from './shopify-config';
import { clientCredentialsShopifyApp, customShopifyApp, publicShopifyApp } from './shopify-library';
import { findBrandShopLink } from './shop-links';

/** A shop's GraphQL Admin API, through the library's client. */
export interface AdminApi {
  shop: string;
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

/** Times a THROTTLED query is sent again (after waiting for the points it needs) before giving up. */
const THROTTLED_RETRIES = 5;

export function adminApiFor(shopify: Shopify, session: Session): AdminApi {
  const client = new shopify.clients.Graphql({ session });
  const throttle = new QueryThrottle();
  return {
    shop: session.shop,
    async request<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
      for (let attempt = 0; ; attempt += 1) {
        await throttle.before(query);
        try {
          // The client throws on GraphQL errors; a 429/5xx is retried by the client.
          const response = await client.request<T>(query, { variables, retries: 2 });
          throttle.after(query, (response.extensions as { cost?: QueryCost } | undefined)?.cost);
          return response.data as T;
        } catch (error) {
          const body = (error as { body?: { errors?: unknown; extensions?: { cost?: QueryCost } } }).body;
          if (!isThrottled(body?.errors) || attempt >= THROTTLED_RETRIES) throw error;
          throttle.after(query, body?.extensions?.cost);
        }
      }
    },
  };
}

function isThrottled(errors: unknown): boolean {
  const list = Array.isArray(errors) ? errors : Array.isArray((errors as { graphQLErrors?: unknown })?.graphQLErrors) ? (errors as { graphQLErrors: unknown[] }).graphQLErrors : [];
  return list.some((error) => (error as { extensions?: { code?: string } })?.extensions?.code === 'THROTTLED');
}

/** A custom app's Admin API: its own token, which does not expire. */
export function customAdminApi(shop: string, accessToken: string, apiSecret: string): AdminApi {
  const shopify = customShopifyApp(accessToken, apiSecret);
  return adminApiFor(shopify, shopify.session.customAppSession(shop));
}

/**
 * The Admin API of the shop linked to a brand, with a fresh token: the public app's offline
 * session (refreshed as needed), or the custom app connected with `shopify connect` (a client-
 * credentials token renewed as needed, or a legacy permanent token).
 */
export async function adminApiForBrand(
  db: Executor,
  brandId: string,
  options: { encryptionSecret: string; appConfig: ShopifyAppConfig | null },
): Promise<AdminApi> {
  const link = await findBrandShopLink(db, brandId);
  if (!link) throw new NotFound(`brand ${brandId} is not connected to a Shopify shop`);
  if (link.status === 'uninstalled') throw new Invalid(`the app was uninstalled from ${link.shop_domain}`);
  const storage = new KnexSessionStorage(db, options.encryptionSecret);
  if (link.app_kind === 'custom') {
    const clientId = await findClientId(db, link.brand_id, link.shop_domain);
    if (clientId && link.api_secret_encrypted) {
      const shopify = clientCredentialsShopifyApp(clientId, decryptSecret(link.api_secret_encrypted, options.encryptionSecret));
      return adminApiFor(shopify, await freshClientCredentialsSession(shopify, storage, link.shop_domain));
    }
    const [session] = await storage.findSessionsByShop(link.shop_domain);
    if (!session?.accessToken || !link.api_secret_encrypted) throw new NotFound(`no access token stored for ${link.shop_domain}`);
    return customAdminApi(link.shop_domain, session.accessToken, decryptSecret(link.api_secret_encrypted, options.encryptionSecret));
  }
  if (!options.appConfig) throw new Invalid('the Shopify app is not configured: set SHOPIFY_API_KEY, SHOPIFY_API_SECRET and SHOPIFY_APP_URL');
  const shopify = publicShopifyApp(options.appConfig);
  return adminApiFor(shopify, await freshOfflineSession(shopify, storage, link.shop_domain));
}
