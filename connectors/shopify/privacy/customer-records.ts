import type { Knex } from 'knex';
import { normalizeEmail } from '../../../core/advocates/normalize';
import { type CustomerSubject, subjectOrderIds } from '../../../core/customers/customer-subject';
import type { Executor } from '../../../core/db/transaction';
import { idString } from '../parse-lossless-json';
import type { CustomerPrivacyRequest } from '../shopify-payloads';

/**
 * Whose records a Shopify privacy request is about: the customer's email, the orders it names, and
 * the customer's id (an order without an email is recorded with it, and may be one it does not name).
 */
export function customerSubject(request: CustomerPrivacyRequest): CustomerSubject {
  const email = request.customer?.email?.trim() ? normalizeEmail(request.customer.email) : null;
  const orders = [...(request.orders_to_redact ?? []), ...(request.orders_requested ?? [])];
  const customerId = idString(request.customer?.id);
  return { email, order_ids: orders.map(idString).filter((id): id is string => id !== null), customer_ids: customerId ? [customerId] : [] };
}

/** The subject with every order of theirs we recorded: the webhook bodies about those orders carry them too. */
export async function withTheirOrders(db: Executor, brandId: string, subject: CustomerSubject): Promise<CustomerSubject> {
  return { ...subject, order_ids: await subjectOrderIds(db, brandId, subject) };
}

/** The brand's kept webhook deliveries that carry the subject: about one of its orders, or naming its email. */
export function subjectDeliveries(db: Executor, brandId: string, subject: CustomerSubject): Knex.QueryBuilder {
  return db('shopify_inbox')
    .where({ brand_id: brandId })
    .andWhere((where) => {
      if (subject.order_ids.length > 0) where.orWhereIn('order_id', subject.order_ids);
      if (subject.email) where.orWhereRaw('position(? in lower(body)) > 0', [subject.email]);
      if (!subject.email && subject.order_ids.length === 0) where.whereRaw('false');
    });
}
