import { exportCustomer } from '../../../core/customers/export-customer';
import { parsePayload } from '../map-paid-order';
import { customerPrivacySchema } from '../shopify-payloads';
import type { TopicHandler } from '../topics/topic-handler';
import { customerSubject } from './customer-records';

/**
 * customers/data_request → everything we hold about the customer, kept as the delivery's result
 * for the merchant to hand over (`referrals shopify inbox --topic customers/data_request --json`).
 */
export const handleCustomersDataRequest: TopicHandler = async (trx, brand, _delivery, body) => {
  const subject = customerSubject(parsePayload(customerPrivacySchema, body, 'customers/data_request'));
  const data = await exportCustomer(trx, brand.brand_id, subject);
  return { outcome: 'data_export_ready', result: { ...data } };
};
