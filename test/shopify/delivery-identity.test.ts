import { randomUUID } from 'node:crypto';
import { processInbox } from '../../connectors/shopify/process-inbox';
import { givenAdvocate } from '../helpers/fixtures';
import { fixtureText, installApp, sendWebhook, setUpShopifyTests } from './shopify-test-kit';

const context = setUpShopifyTests();

const ORDER_WITH_TENOFF = fixtureText('order-with-discount-code.shopify-api-fixture.json');

describe('Shopify delivery identity (X-Shopify-Webhook-Id and X-Shopify-Event-Id)', () => {
  it('keeps an event retried under a new webhook id once: the retry is acknowledged as a duplicate and nothing is counted twice', async () => {
    const installed = await installApp(context.app, context.fake);
    await givenAdvocate(context.app.db, installed.brandId, { code: 'TENOFF' });
    const eventId = randomUUID();
    const first = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop, webhookId: 'try-1' }).set('X-Shopify-Event-Id', eventId);
    const retry = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop, webhookId: 'try-2' }).set('X-Shopify-Event-Id', eventId);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ accepted: true, duplicate: false });
    expect(retry.status).toBe(200);
    expect(retry.body.data).toEqual({ accepted: true, duplicate: true });

    const kept = await context.app.db('shopify_inbox').where({ brand_id: installed.brandId }).select('webhook_id', 'event_id');
    expect(kept).toEqual([{ webhook_id: 'try-1', event_id: eventId }]);
    await processInbox(context.app.db, { brandId: installed.brandId });
    expect(await context.app.db('conversions').where({ brand_id: installed.brandId })).toHaveLength(1);
  });

  it('keeps a repeated X-Shopify-Webhook-Id once, whatever its event id', async () => {
    const installed = await installApp(context.app, context.fake);
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop, webhookId: 'same' }).set('X-Shopify-Event-Id', randomUUID());
    const again = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop, webhookId: 'same' }).set('X-Shopify-Event-Id', randomUUID());
    expect(again.body.data).toEqual({ accepted: true, duplicate: true });
    expect(await context.app.db('shopify_inbox').where({ brand_id: installed.brandId })).toHaveLength(1);
  });

  it('keeps two different events (different event ids) as two deliveries, and deliveries without an event id by their webhook id', async () => {
    const installed = await installApp(context.app, context.fake);
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop, webhookId: 'a' }).set('X-Shopify-Event-Id', randomUUID());
    await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop, webhookId: 'b' }).set('X-Shopify-Event-Id', randomUUID());
    const noEvent1 = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop, webhookId: 'c' });
    const noEvent2 = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: installed.shop, webhookId: 'd' });
    expect([noEvent1.body.data.duplicate, noEvent2.body.data.duplicate]).toEqual([false, false]);
    const ids = (await context.app.db('shopify_inbox').where({ brand_id: installed.brandId }).orderBy('webhook_id').select('webhook_id')).map((row) => row.webhook_id);
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
  });

  it('the same event id at two different shops (brands) is two deliveries', async () => {
    const one = await installApp(context.app, context.fake);
    const two = await installApp(context.app, context.fake);
    const eventId = randomUUID();
    const first = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: one.shop }).set('X-Shopify-Event-Id', eventId);
    const second = await sendWebhook(context.app, ORDER_WITH_TENOFF, { topic: 'orders/paid', shop: two.shop }).set('X-Shopify-Event-Id', eventId);
    expect([first.body.data.duplicate, second.body.data.duplicate]).toEqual([false, false]);
  });
});
