import { requireCurrency } from '../../core/currency';
import { inTransaction } from '../../core/db/transaction';
import { CLI_OPERATOR, CliError, type Command, brandFlag, choiceFlag, flagsFirst, numberFlag, optionalFlag, requiredFlag } from '../../server/http';
import { adminApiForBrand } from './admin-api';
import { customAppCredentials } from './custom-app-credentials';
import { inboxCounts, listInbox, requeueDelivery } from './inbox';
import { connectCustomApp } from './install-shop';
import { processInbox } from './process-inbox';
import { getDataRequest, listDataRequests } from './privacy/data-requests';
import { reconcileShop } from './reconcile';
import { type ShopifySettings, normalizeShopDomain, webhookUrl } from './shopify-config';
import { repairDiscount } from './discount-repair';
import { discountStatus } from './discount-status';
import { retryFailedIssues } from '../../core/rewards/retry-issues';
import { rewardCodeStatus } from './reward-code-status';
import { shopStatus } from './shop-status';
import { subscribeAndRecord } from './subscription-states';

const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `[██████░░░░░░] 12/40 orders` (a count alone when the total is unknown). */
export function progressBar(done: number, total: number | null, width = 30): string {
  if (total === null || total <= 0) return `${done} orders`;
  const filled = Math.min(width, Math.round((done / total) * width));
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${done}/${total} orders`;
}

/** The `referrals shopify …` commands, around the connector's settings. */
export function shopifyCommands(settings: ShopifySettings): Record<string, Command> {
  return {
    'shopify connect': flagsFirst(
      'shopify connect --brand ID --shop x.myshopify.com (--client-id ID --client-secret SECRET | --access-token TOKEN --api-secret SECRET) [--app-url URL] [--json]',
      (flags) => {
        const brandId = brandFlag(flags);
        const shop = normalizeShopDomain(requiredFlag(flags, 'shop'));
        if (!shop) throw new CliError('--shop must be the shop\'s myshopify.com domain, like example.myshopify.com');
        const appUrl = optionalFlag(flags, 'app-url') ?? settings.webhookOrigin;
        if (appUrl && !/^https?:\/\/[^/\s]+\/?$/.test(appUrl)) throw new CliError(`--app-url must be the service's origin, like https://referrals.example.com (got "${appUrl}")`);
        return { flags, brandId, shop, appUrl };
      },
      async ({ flags, brandId, shop, appUrl }, { db, config, progress }) => {
        const { api, apiSecret, stored } = await customAppCredentials(flags, shop, progress);
        let shopName: string;
        let currency: string;
        try {
          ({ shop: { name: shopName, currencyCode: currency } } = await api.request<{ shop: { name: string; currencyCode: string } }>(
            '#graphql\n query ConnectedShop { shop { name currencyCode } }',
          ));
        } catch (error) {
          throw new Error(`Shopify refused the access token for ${shop}: ${(error as Error).message}`);
        }
        await inTransaction(db, (trx) =>
          connectCustomApp(trx, { brandId, shop, apiSecret, encryptionSecret: config.keyEncryptionSecret, currency: requireCurrency(currency, 'shop.currencyCode'), actor: CLI_OPERATOR.name, ...stored }),
        );
        const webhooks = appUrl
          ? await subscribeAndRecord(db, { brand_id: brandId, shop_domain: shop }, api, webhookUrl(appUrl))
          : 'skipped: pass --app-url (or set SHOPIFY_APP_URL) so Shopify knows where to deliver webhooks';
        return { brand_id: brandId, shop, shop_name: shopName, app: 'custom', webhooks };
      },
    ),
    'shopify inbox': flagsFirst(
      'shopify inbox [--brand ID] [--status pending|done|failed] [--topic T] [--limit N] [--retry WEBHOOK_ID --brand ID] [--process] [--json]',
      (flags) => {
        const brandId = flags.brand !== undefined ? brandFlag(flags) : undefined;
        const webhookId = optionalFlag(flags, 'retry');
        if (webhookId && !brandId) throw new CliError('--retry needs --brand');
        const list = {
          brandId,
          status: choiceFlag(flags, 'status', ['pending', 'done', 'failed'] as const),
          topic: optionalFlag(flags, 'topic'),
          limit: numberFlag(flags, 'limit', { integer: true }) ?? 50,
        };
        const retry = webhookId && brandId ? { brandId, webhookId } : undefined;
        return { brandId, retry, processNow: Boolean(flags.process) || retry !== undefined, list };
      },
      async ({ brandId, retry, processNow, list }, { db }) => {
        if (retry) await requeueDelivery(db, retry.brandId, retry.webhookId);
        const processed = processNow ? await processInbox(db, { brandId }) : undefined;
        const deliveries = await listInbox(db, list);
        return {
          counts: await inboxCounts(db, brandId),
          ...(retry ? { retried: retry.webhookId } : {}),
          ...(processed ? { processed } : {}),
          deliveries,
        };
      },
    ),
    'shopify data-requests': flagsFirst('shopify data-requests --brand ID [--json]', brandFlag, async (brandId, { db }) => ({
      data_requests: await listDataRequests(db, brandId),
    })),
    'shopify data-request': flagsFirst(
      'shopify data-request --brand ID --id N [--json]',
      (flags) => {
        const id = requiredFlag(flags, 'id');
        if (!/^[1-9]\d{0,17}$/.test(id)) throw new CliError(`--id must be the number \`shopify data-requests\` lists (got "${id}")`);
        return { brandId: brandFlag(flags), id };
      },
      ({ brandId, id }, { db }) => getDataRequest(db, brandId, id),
    ),
    'shopify status': flagsFirst('shopify status --brand ID [--json]', brandFlag, (brandId, { db, config }) =>
      shopStatus(db, brandId, () => adminApiForBrand(db, brandId, { encryptionSecret: config.keyEncryptionSecret, appConfig: settings.app })),
    ),
    'shopify codes': flagsFirst(
      'shopify codes --brand ID [--repair] [--retry-rewards] [--json]',
      (flags) => ({ brandId: brandFlag(flags), repair: Boolean(flags.repair), retryRewards: Boolean(flags['retry-rewards']) }),
      async ({ brandId, repair, retryRewards }, { db, config }) => {
        const repaired = repair
          ? await repairDiscount(db, brandId, () => adminApiForBrand(db, brandId, { encryptionSecret: config.keyEncryptionSecret, appConfig: settings.app }))
          : null;
        const retried = retryRewards ? { reward_codes_retried: await inTransaction(db, (trx) => retryFailedIssues(trx, brandId, CLI_OPERATOR.name)) } : {};
        return { ...(await discountStatus(db, brandId)), reward_codes: await rewardCodeStatus(db, brandId), ...(repaired ? { repair: repaired } : {}), ...retried };
      },
    ),
    'shopify reconcile': flagsFirst(
      'shopify reconcile --brand ID --since YYYY-MM-DD [--bulk] [--json]',
      (flags) => {
        const brandId = brandFlag(flags);
        const since = requiredFlag(flags, 'since');
        if (!DATE.test(since) || Number.isNaN(Date.parse(since))) throw new CliError(`--since must be a date like 2026-11-01 (got "${since}")`);
        return { brandId, since, bulk: Boolean(flags.bulk) };
      },
      async ({ brandId, since, bulk }, { db, config, isTTY, progress }) => {
        const api = await adminApiForBrand(db, brandId, { encryptionSecret: config.keyEncryptionSecret, appConfig: settings.app });
        const summary = await reconcileShop(db, brandId, {
          since,
          api,
          webhookUri: settings.webhookOrigin ? webhookUrl(settings.webhookOrigin) : null,
          bulk: bulk ? {} : null,
          onProgress: isTTY ? (done, total) => progress(`\r${progressBar(done, total)}`) : undefined,
        });
        if (isTTY) progress('\n');
        return summary;
      },
    ),
  };
}
