import type { Knex } from 'knex';
import type { Executor } from '../db/transaction';

/** Whose records a personal-data request is about: a customer's email, the orders it names, the platform's ids for the customer. */
export interface CustomerSubject {
  /** Normalized (trimmed, lower-cased); null when the request names orders only. */
  email: string | null;
  order_ids: string[];
  /** The platform's customer ids, as an order without an email records them (metadata.customer.id). */
  customer_ids?: string[];
}

/** A row's platform customer id: what a connector records for an email-less order. */
const CUSTOMER_ID = "metadata #>> '{customer,id}'";

/** Rows of a brand's claims or conversions that belong to the subject: by email, one of its orders or its customer id. */
export function subjectRows(db: Executor, table: 'claims' | 'conversions', brandId: string, subject: CustomerSubject): Knex.QueryBuilder {
  const customerIds = subject.customer_ids ?? [];
  return db(table)
    .where({ brand_id: brandId })
    .andWhere((where) => {
      if (subject.email) where.orWhere({ email_normalized: subject.email });
      if (subject.order_ids.length > 0) where.orWhereIn('order_id', subject.order_ids);
      if (customerIds.length > 0) where.orWhereRaw(`${CUSTOMER_ID} in (${customerIds.map(() => '?').join(', ')})`, customerIds);
      if (!subject.email && subject.order_ids.length === 0 && customerIds.length === 0) where.whereRaw('false');
    });
}

/** The orders of the subject's claims and conversions (a request may name none of them). */
export async function subjectOrderIds(db: Executor, brandId: string, subject: CustomerSubject): Promise<string[]> {
  const rows: Array<{ order_id: string | null }> = [
    ...(await subjectRows(db, 'conversions', brandId, subject).select('order_id')),
    ...(await subjectRows(db, 'claims', brandId, subject).select('order_id')),
  ];
  return [...new Set([...subject.order_ids, ...rows.map((row) => row.order_id).filter((id): id is string => id !== null)])];
}
