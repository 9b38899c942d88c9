import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { PROXY_PATH, STOREFRONT_PROXY_PATH } from '../../connectors/shopify/app-proxy';
import { AUTH_CALLBACK_PATH, AUTH_PATH, SHOPIFY_API_VERSION, loadShopifySettings, webhookUrl } from '../../connectors/shopify/shopify-config';
import { TOPIC_HANDLERS } from '../../connectors/shopify/topics/topic-handlers';

// The app's configuration as code, read as the Shopify CLI reads it, against the connector itself.
const toml = parse(fs.readFileSync(path.join(__dirname, '../../shopify.app.toml'), 'utf8')) as any;
const subscriptions: Array<{ topics?: string[]; compliance_topics?: string[]; uri: string }> = toml.webhooks.subscriptions;
/** The one host every URL of the file names. */
const origin = new URL(toml.application_url).origin;

describe('shopify.app.toml', () => {
  it('subscribes, at app level, every topic the connector handles, and nothing it does not', () => {
    const topics = subscriptions.flatMap((subscription) => subscription.topics ?? []);
    const compliance = subscriptions.flatMap((subscription) => subscription.compliance_topics ?? []);
    expect(compliance.sort()).toEqual(['customers/data_request', 'customers/redact', 'shop/redact']);
    expect([...topics, ...compliance].sort()).toEqual(Object.keys(TOPIC_HANDLERS).sort());
    expect(topics).toEqual(expect.arrayContaining(['orders/paid', 'refunds/create', 'app/uninstalled', 'orders/cancelled', 'order_transactions/create']));
  });

  it('installs through our install route, and delivers every subscription to the webhook route of the same host, at the API version the app calls', () => {
    expect(origin).toMatch(/^https:\/\/[^/]+$/);
    expect(toml.application_url).toBe(`${origin}${AUTH_PATH}`);
    for (const subscription of subscriptions) expect(subscription.uri).toBe(webhookUrl(origin));
    expect(webhookUrl(origin)).toBe(`${origin}/shopify/webhooks`);
    expect(toml.webhooks.api_version).toBe('2026-10');
    expect(toml.webhooks.api_version).toBe(SHOPIFY_API_VERSION);
  });

  it('redirects OAuth to the callback route on the same host', () => {
    expect(toml.auth.redirect_urls).toEqual([`${origin}${AUTH_CALLBACK_PATH}`]);
    expect(AUTH_CALLBACK_PATH).toBe('/shopify/auth/callback');
  });

  it('asks for the scopes the app asks for at install (SHOPIFY_SCOPES unset), and opens embedded in the admin', () => {
    const settings = loadShopifySettings({ SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: 's', SHOPIFY_APP_URL: origin });
    expect(toml.access_scopes.scopes.split(',').map((scope: string) => scope.trim())).toEqual(settings.app!.scopes);
    expect(toml.access_scopes.scopes).toBe('read_orders,write_discounts,write_app_proxy,write_store_credit_account_transactions,read_store_credit_accounts,read_customers');
    expect(toml.embedded).toBe(true);
    // Not Shopify-managed installation: the service runs the authorization-code grant itself.
    expect(toml.access_scopes.use_legacy_install_flow).toBe(true);
  });

  it('forwards the store\'s /apps/referrals to the proxy route on the same host (write_app_proxy granted)', () => {
    expect(toml.app_proxy).toEqual({ url: `${origin}${PROXY_PATH}`, prefix: 'apps', subpath: 'referrals' });
    expect(PROXY_PATH).toBe('/shopify/proxy');
    expect(`/${toml.app_proxy.prefix}/${toml.app_proxy.subpath}`).toBe(STOREFRONT_PROXY_PATH);
    expect(toml.access_scopes.scopes.split(',')).toContain('write_app_proxy');
  });
});
