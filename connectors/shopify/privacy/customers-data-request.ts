import { exportCustomer } from '../../../core/customers/export-customer';
import { parsePayload } from '../map-paid-order';
import { idString } from '../parse-lossless-json';
import { customerPrivacySchema } from '../shopify-payloads';
import type { TopicHandler } from '../topics/topic-handler';
import { customerSubject, subjectDeliveries, withTheirOrders } from './customer-records';
import { saveDataRequest } from './data-requests';

/**
 * customers/data_request → everything we hold about the customer (our records and the webhook
 * bodies that carry them), kept for the merchant to hand over:
 * `referrals shopify data-requests --brand ID`, then `referrals shopify data-request --brand ID --id N`.
 */
export const handleCustomersDataRequest: TopicHandler = async (trx, brand, delivery, body) => {
  const request = parsePayload(customerPrivacySchema, body, 'customers/data_request');
  const subject = customerSubject(request);
  const records = await exportCustomer(trx, brand.brand_id, subject);
  const deliveries = await subjectDeliveries(trx, brand.brand_id, await withTheirOrders(trx, brand.brand_id, subject))
    // The request itself names the customer but is not data we hold about them.
    .whereNot({ webhook_id: delivery.webhook_id })
    .select('webhook_id', 'topic', 'received_at', 'body')
    .orderBy('received_at');
  const id = await saveDataRequest(trx, {
    brand_id: brand.brand_id,
    shop_domain: delivery.shop_domain,
    webhook_id: delivery.webhook_id,
    export: { ...records, shopify_request_id: idString(request.data_request?.id), webhook_deliveries: deliveries },
  });
  return {
    outcome: 'data_export_ready',
    result: { data_request_id: id, claims: records.claims.length, conversions: records.conversions.length, webhook_deliveries: deliveries.length },
  };
};
