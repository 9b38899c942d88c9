import { decryptSecret } from '../../core/brands/key-encryption';
import { type Ctx, HttpError } from '../../server/http';
import { acceptDelivery } from './inbox';
import type { InboxBell } from './inbox-worker';
import { idString, parseLosslessJson } from './parse-lossless-json';
import { findShopLink } from './shop-links';
import { type ShopifyAppConfig, normalizeShopDomain } from './shopify-config';
import { verifyWebhookHmac } from './verify-webhook';

/**
 * POST /shopify/webhooks: verify the HMAC over the raw body, keep the delivery once per
 * X-Shopify-Webhook-Id and once per X-Shopify-Event-Id, acknowledge. Processing happens afterwards, from the inbox, so the answer
 * costs one insert (Shopify gives up after 5 s); `bell` wakes the inbox worker.
 */
export async function receiveShopifyWebhook(ctx: Ctx, app: ShopifyAppConfig | null, bell: InboxBell): Promise<void> {
  const { db, config } = ctx.app.context.deps;
  const raw = ctx.state.rawBody ?? Buffer.alloc(0);
  const shop = normalizeShopDomain(ctx.get('x-shopify-shop-domain'));
  const link = shop ? await findShopLink(db, shop) : null;
  // The public app's secret, or the secret of the custom app this shop was connected with.
  const secrets = [
    app?.apiSecret,
    link?.api_secret_encrypted ? decryptSecret(link.api_secret_encrypted, config.keyEncryptionSecret) : undefined,
  ].filter((secret): secret is string => Boolean(secret));
  if (!verifyWebhookHmac(raw, ctx.get('x-shopify-hmac-sha256') || undefined, secrets)) {
    throw new HttpError(401, 'invalid or missing webhook signature (X-Shopify-Hmac-Sha256)');
  }

  const topic = ctx.get('x-shopify-topic').trim().toLowerCase();
  const webhookId = ctx.get('x-shopify-webhook-id').trim();
  if (!topic) throw new HttpError(400, 'X-Shopify-Topic is required');
  if (!webhookId) throw new HttpError(400, 'X-Shopify-Webhook-Id is required');
  if (!shop) throw new HttpError(400, 'X-Shopify-Shop-Domain must be a shop domain like example.myshopify.com');
  let body: unknown;
  try {
    body = parseLosslessJson(raw.toString('utf8'));
  } catch {
    throw new HttpError(400, 'webhook body is not valid JSON');
  }

  ctx.status = 200;
  if (!link) {
    // Signed by our app but for a shop we do not know (e.g. after shop/redact): nothing to keep.
    ctx.body = { success: true, data: { accepted: false, reason: `unknown shop ${shop}` } };
    return;
  }
  const accepted = await acceptDelivery(db, {
    brand_id: link.brand_id,
    webhook_id: webhookId,
    shop_domain: shop,
    topic,
    api_version: ctx.get('x-shopify-api-version') || null,
    event_id: ctx.get('x-shopify-event-id').trim() || null,
    triggered_at: ctx.get('x-shopify-triggered-at') || null,
    order_id: subjectOrderId(topic, body),
    body: raw.toString('utf8'),
  });
  ctx.body = { success: true, data: { accepted: true, duplicate: !accepted } };
  if (accepted) bell.ring();
}

/** The order a delivery is about, kept beside it (refunds wait for their order; redaction finds it). */
function subjectOrderId(topic: string, body: unknown): string | null {
  if (body === null || typeof body !== 'object') return null;
  const record = body as Record<string, unknown>;
  if (topic.startsWith('orders/')) return idString(record.id);
  if (topic.startsWith('refunds/')) return idString(record.order_id);
  return null;
}
