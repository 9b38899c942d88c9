import { randomUUID } from 'node:crypto';
import { parsePayload } from '../map-paid-order';
import { customerPrivacySchema } from '../shopify-payloads';
import type { TopicHandler } from '../topics/topic-handler';
import { customerSubject, subjectRows } from './customer-records';

/**
 * customers/redact → the customer's personal data in our records is replaced by a placeholder;
 * the money (orders, refunds, rewards) stays, no longer tied to a person. The webhook bodies that
 * carried it are emptied too.
 */
export const handleCustomersRedact: TopicHandler = async (trx, brand, _delivery, body) => {
  const subject = customerSubject(parsePayload(customerPrivacySchema, body, 'customers/redact'));
  const placeholder = `redacted-${randomUUID()}@redacted.invalid`;
  const anonymous = { email: placeholder, email_normalized: placeholder, customer_name: null, visitor_id: null };
  const conversions = await subjectRows(trx, 'conversions', brand.brand_id, subject).update({ ...anonymous, updated_at: trx.fn.now() });
  const claims = await subjectRows(trx, 'claims', brand.brand_id, subject).update({ ...anonymous, phone: null, updated_at: trx.fn.now() });
  const advocates = subject.email
    ? await trx('advocates')
        .where({ brand_id: brand.brand_id, email_normalized: subject.email })
        .update({ email: placeholder, email_normalized: placeholder, first_name: 'Redacted', last_name: null })
    : 0;
  const deliveries = await trx('shopify_inbox')
    .where({ brand_id: brand.brand_id })
    .andWhere((where) => {
      if (subject.order_ids.length > 0) where.orWhereIn('order_id', subject.order_ids);
      if (subject.email) where.orWhereRaw('position(? in lower(body)) > 0', [subject.email]);
      if (!subject.email && subject.order_ids.length === 0) where.whereRaw('false');
    })
    .update({ body: '{"redacted":true}', result: null });
  return { outcome: 'customer_redacted', result: { conversions, claims, advocates, deliveries } };
};
