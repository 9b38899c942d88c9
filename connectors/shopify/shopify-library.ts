import '@shopify/shopify-api/adapters/node';
import { LogSeverity, type Shopify, shopifyApi } from '@shopify/shopify-api';
import { SHOPIFY_API_VERSION, type ShopifyAppConfig } from './shopify-config';

// The library logs through console by default; only its warnings and errors are worth keeping.
const quietLogger = {
  level: LogSeverity.Warning,
  log: (severity: LogSeverity, message: string) => {
    if (severity <= LogSeverity.Warning) process.stderr.write(`[shopify-api] ${message}\n`);
  },
};

const publicApps = new Map<string, Shopify>();

/** The library configured as our public app (OAuth, token refresh, Admin API calls). */
export function publicShopifyApp(config: ShopifyAppConfig): Shopify {
  const url = new URL(config.appUrl);
  const cacheKey = JSON.stringify([config.apiKey, config.apiSecret, config.appUrl, config.scopes]);
  let app = publicApps.get(cacheKey);
  if (!app) {
    app = shopifyApi({
      apiKey: config.apiKey,
      apiSecretKey: config.apiSecret,
      hostName: url.host,
      hostScheme: url.protocol === 'http:' ? 'http' : 'https',
      scopes: config.scopes,
      apiVersion: SHOPIFY_API_VERSION,
      // A standalone app: the install ends on our own page, not inside the Shopify admin.
      isEmbeddedApp: false,
      logger: quietLogger,
    });
    publicApps.set(cacheKey, app);
  }
  return app;
}

/** The library configured for a merchant's own custom app (its Admin API token and secret). */
export function customShopifyApp(accessToken: string, apiSecret: string): Shopify {
  return shopifyApi({
    apiSecretKey: apiSecret,
    adminApiAccessToken: accessToken,
    isCustomStoreApp: true,
    hostName: 'localhost',
    apiVersion: SHOPIFY_API_VERSION,
    isEmbeddedApp: false,
    logger: quietLogger,
  });
}

const clientCredentialsApps = new Map<string, Shopify>();

/**
 * The library configured as a merchant's Dev Dashboard app (its client id and secret): it obtains
 * 24-hour tokens by the client-credentials grant and calls the Admin API with them.
 */
export function clientCredentialsShopifyApp(clientId: string, clientSecret: string): Shopify {
  const cacheKey = JSON.stringify([clientId, clientSecret]);
  let app = clientCredentialsApps.get(cacheKey);
  if (!app) {
    app = shopifyApi({
      apiKey: clientId,
      apiSecretKey: clientSecret,
      hostName: 'localhost',
      apiVersion: SHOPIFY_API_VERSION,
      isEmbeddedApp: false,
      logger: quietLogger,
    });
    clientCredentialsApps.set(cacheKey, app);
  }
  return app;
}
