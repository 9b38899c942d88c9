import type { Session } from '@shopify/shopify-api';
import { CliError, type Flags, optionalFlag } from '../../server/http';
import { type AdminApi, adminApiFor, customAdminApi } from './admin-api';
import { clientCredentialsShopifyApp } from './shopify-library';

/** How `shopify connect` reaches the merchant's custom app, and what is stored to reach it again. */
export interface CustomAppCredentials {
  api: AdminApi;
  /** Signs the app's webhooks (the client secret, or a legacy app's API secret). */
  apiSecret: string;
  stored: { clientId: string; session: Session } | { accessToken: string };
}

export const LEGACY_TOKEN_WARNING =
  'warning: --access-token connects a legacy custom app with a permanent token; apps created since 2026-01-01 use the Dev Dashboard: pass --client-id and --client-secret instead\n';

/**
 * From `shopify connect`'s flags: a Dev Dashboard app (--client-id, --client-secret), whose first
 * 24-hour token is obtained now by the client-credentials grant; or a legacy permanent token
 * (--access-token, --api-secret), accepted with a warning.
 */
export async function customAppCredentials(flags: Flags, shop: string, warn: (line: string) => void): Promise<CustomAppCredentials> {
  const clientId = optionalFlag(flags, 'client-id');
  const clientSecret = optionalFlag(flags, 'client-secret');
  const accessToken = optionalFlag(flags, 'access-token');
  if (accessToken && (clientId || clientSecret)) throw new CliError('pass either --client-id and --client-secret, or (a legacy app) --access-token and --api-secret, not both');
  if (accessToken) {
    const apiSecret = optionalFlag(flags, 'api-secret');
    if (!apiSecret) throw new CliError('--access-token needs --api-secret (the app\'s API secret key, which signs its webhooks)');
    warn(LEGACY_TOKEN_WARNING);
    return { api: customAdminApi(shop, accessToken, apiSecret), apiSecret, stored: { accessToken } };
  }
  if (!clientId || !clientSecret) throw new CliError('--client-id and --client-secret are required: the Dev Dashboard app\'s client credentials (Settings → Credentials)');
  const shopify = clientCredentialsShopifyApp(clientId, clientSecret);
  let session: Session;
  try {
    ({ session } = await shopify.auth.clientCredentials({ shop }));
  } catch (error) {
    throw new Error(`Shopify refused the client credentials for ${shop} (is the app installed on the shop, and are the client id and secret its own?): ${(error as Error).message}`);
  }
  return { api: adminApiFor(shopify, session), apiSecret: clientSecret, stored: { clientId, session } };
}
