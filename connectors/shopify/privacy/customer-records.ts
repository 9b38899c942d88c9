import { normalizeEmail } from '../../../core/advocates/normalize';
import type { Executor } from '../../../core/db/transaction';
import { idString } from '../parse-lossless-json';
import type { CustomerPrivacyRequest } from '../shopify-payloads';

/** Whose records a privacy request is about: the customer's email and the orders it names. */
export interface CustomerSubject {
  email: string | null;
  order_ids: string[];
}

export function customerSubject(request: CustomerPrivacyRequest): CustomerSubject {
  const email = request.customer?.email?.trim() ? normalizeEmail(request.customer.email) : null;
  const orders = [...(request.orders_to_redact ?? []), ...(request.orders_requested ?? [])];
  return { email, order_ids: orders.map(idString).filter((id): id is string => id !== null) };
}

/** Rows of a brand's table that belong to the subject: by email or by one of its orders. */
export function subjectRows(db: Executor, table: 'claims' | 'conversions', brandId: string, subject: CustomerSubject) {
  return db(table)
    .where({ brand_id: brandId })
    .andWhere((where) => {
      if (subject.email) where.orWhere({ email_normalized: subject.email });
      if (subject.order_ids.length > 0) where.orWhereIn('order_id', subject.order_ids);
      if (!subject.email && subject.order_ids.length === 0) where.whereRaw('false');
    });
}
