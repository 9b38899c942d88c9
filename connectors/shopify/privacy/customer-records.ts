import { normalizeEmail } from '../../../core/advocates/normalize';
import type { CustomerSubject } from '../../../core/customers/customer-subject';
import { idString } from '../parse-lossless-json';
import type { CustomerPrivacyRequest } from '../shopify-payloads';

/** Whose records a Shopify privacy request is about: the customer's email and the orders it names. */
export function customerSubject(request: CustomerPrivacyRequest): CustomerSubject {
  const email = request.customer?.email?.trim() ? normalizeEmail(request.customer.email) : null;
  const orders = [...(request.orders_to_redact ?? []), ...(request.orders_requested ?? [])];
  return { email, order_ids: orders.map(idString).filter((id): id is string => id !== null) };
}
