import { parsePayload } from '../map-paid-order';
import { customerPrivacySchema } from '../shopify-payloads';
import type { TopicHandler } from '../topics/topic-handler';
import { customerSubject, subjectRows } from './customer-records';

/**
 * customers/data_request → everything we hold about the customer, kept as the delivery's result
 * for the merchant to hand over (`referrals shopify inbox --topic customers/data_request --json`).
 */
export const handleCustomersDataRequest: TopicHandler = async (trx, brand, _delivery, body) => {
  const subject = customerSubject(parsePayload(customerPrivacySchema, body, 'customers/data_request'));
  const conversions = await subjectRows(trx, 'conversions', brand.brand_id, subject).select(
    'conversion_id', 'order_id', 'email', 'customer_name', 'visitor_id', 'status', 'order_value', 'currency', 'referral_code', 'created_at',
  );
  const claims = await subjectRows(trx, 'claims', brand.brand_id, subject).select(
    'claim_id', 'order_id', 'email', 'customer_name', 'phone', 'visitor_id', 'status', 'referral_code', 'created_at',
  );
  const advocate = subject.email
    ? await trx('advocates').select('advocate_id', 'email', 'first_name', 'last_name', 'created_at').where({ brand_id: brand.brand_id, email_normalized: subject.email }).first()
    : undefined;
  return {
    outcome: 'data_export_ready',
    result: { customer_email: subject.email, orders: subject.order_ids, advocate: advocate ?? null, claims, conversions },
  };
};
