import type { Knex } from 'knex';
import { normalizeEmail } from '../../../core/advocates/normalize';
import type { CustomerSubject } from '../../../core/customers/customer-subject';
import type { Executor } from '../../../core/db/transaction';
import { idString } from '../parse-lossless-json';
import type { CustomerPrivacyRequest } from '../shopify-payloads';

/** Whose records a Shopify privacy request is about: the customer's email and the orders it names. */
export function customerSubject(request: CustomerPrivacyRequest): CustomerSubject {
  const email = request.customer?.email?.trim() ? normalizeEmail(request.customer.email) : null;
  const orders = [...(request.orders_to_redact ?? []), ...(request.orders_requested ?? [])];
  return { email, order_ids: orders.map(idString).filter((id): id is string => id !== null) };
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
