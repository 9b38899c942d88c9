import { redactCustomer } from '../../../core/customers/redact-customer';
import { parsePayload } from '../map-paid-order';
import { customerPrivacySchema } from '../shopify-payloads';
import type { TopicHandler } from '../topics/topic-handler';
import { customerSubject, subjectDeliveries, withTheirOrders } from './customer-records';
import { deleteSubjectDataRequests } from './data-requests';

/**
 * customers/redact → the customer's personal data in our records is replaced by a placeholder
 * (the core's redaction); the webhook bodies that carried it are emptied and the data-request
 * exports made for them deleted.
 */
export const handleCustomersRedact: TopicHandler = async (trx, brand, _delivery, body) => {
  const named = customerSubject(parsePayload(customerPrivacySchema, body, 'customers/redact'));
  // Their orders are found before the redaction removes what finds them (email, customer id).
  const subject = await withTheirOrders(trx, brand.brand_id, named);
  const redacted = await redactCustomer(trx, brand.brand_id, subject);
  const deliveries = await subjectDeliveries(trx, brand.brand_id, subject).update({ body: '{"redacted":true}', result: null });
  const dataRequests = await deleteSubjectDataRequests(trx, brand.brand_id, subject);
  // Who the customer became on the store's referral page (the app proxy): the link to their id goes.
  const storefrontLinks = (subject.customer_ids ?? []).length
    ? (await trx('shopify_storefront_customers').where({ brand_id: brand.brand_id }).whereIn('customer_id', subject.customer_ids!).delete().returning('customer_id')).length
    : 0;
  return { outcome: 'customer_redacted', result: { ...redacted, deliveries, data_requests: dataRequests, storefront_links: storefrontLinks } };
};
