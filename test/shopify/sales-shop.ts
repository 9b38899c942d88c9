import { randomUUID } from 'node:crypto';
import { processInbox } from '../../connectors/shopify/process-inbox';
import { updateBrand } from '../../core/brands/brand';
import { givenAdvocate } from '../helpers/fixtures';
import { type ShopifyTestContext, inboxRow, installApp, sendWebhook } from './shopify-test-kit';

/**
 * An installed shop whose advocate owns TENOFF (the fixtures' discount code); the reward rule as
 * given, credited at once (no hold) and left in the balance (fulfilment `payout`: these tests count
 * what a sale credits; an install's default, codes, is test/shopify/reward-codes.test.ts's).
 * `currency`: the shop's (so its brand's), USD unless given.
 */
export async function shopWithTenoff(
  context: ShopifyTestContext,
  reward: { reward_type: 'fixed' | 'percentage'; reward_value: number } = { reward_type: 'fixed', reward_value: 10 },
  currency?: string,
) {
  const installed = await installApp(context.app, context.fake, undefined, 'premier', currency);
  await updateBrand(context.app.db, installed.brandId, { ...reward, reward_hold_days: 0, reward_fulfilment: 'payout' });
  const advocate = await givenAdvocate(context.app.db, installed.brandId, { code: 'TENOFF' });
  return { ...installed, advocate };
}

/** Delivers one signed webhook, processes the shop's inbox, and returns the delivery's inbox row. */
export async function deliver(context: ShopifyTestContext, shop: { shop: string; brandId: string }, topic: string, body: string) {
  const webhookId = randomUUID();
  const response = await sendWebhook(context.app, body, { topic, shop: shop.shop, webhookId });
  if (response.status !== 200) throw new Error(`webhook refused: ${response.status} ${JSON.stringify(response.body)}`);
  await processInbox(context.app.db, { brandId: shop.brandId });
  return (await inboxRow(context.app.db, shop.brandId, webhookId))!;
}

export function conversionOf(context: ShopifyTestContext, brandId: string, orderId: string) {
  return context.app.db('conversions').where({ brand_id: brandId, order_id: orderId }).first();
}

export function refundsOf(context: ShopifyTestContext, brandId: string) {
  return context.app.db('refunds').where({ brand_id: brandId }).orderBy('refund_pk').select('refund_id', 'amount', 'status_after', 'metadata');
}
