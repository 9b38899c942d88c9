import { redactCustomer } from '../../../core/customers/redact-customer';
import { parsePayload } from '../map-paid-order';
import { customerPrivacySchema } from '../shopify-payloads';
import type { TopicHandler } from '../topics/topic-handler';
import { customerSubject } from './customer-records';

/**
 * customers/redact → the customer's personal data in our records is replaced by a placeholder
 * (the core's redaction); the webhook bodies that carried it are emptied too.
 */
export const handleCustomersRedact: TopicHandler = async (trx, brand, _delivery, body) => {
  const subject = customerSubject(parsePayload(customerPrivacySchema, body, 'customers/redact'));
  const redacted = await redactCustomer(trx, brand.brand_id, subject);
  const deliveries = await trx('shopify_inbox')
    .where({ brand_id: brand.brand_id })
    .andWhere((where) => {
      if (subject.order_ids.length > 0) where.orWhereIn('order_id', subject.order_ids);
      if (subject.email) where.orWhereRaw('position(? in lower(body)) > 0', [subject.email]);
      if (!subject.email && subject.order_ids.length === 0) where.whereRaw('false');
    })
    .update({ body: '{"redacted":true}', result: null });
  return { outcome: 'customer_redacted', result: { ...redacted, deliveries } };
};
