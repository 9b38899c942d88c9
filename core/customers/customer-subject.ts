import type { Knex } from 'knex';
import type { Executor } from '../db/transaction';

/** Whose records a personal-data request is about: a customer's email, and the orders it names. */
export interface CustomerSubject {
  /** Normalized (trimmed, lower-cased); null when the request names orders only. */
  email: string | null;
  order_ids: string[];
}

/** Rows of a brand's claims or conversions that belong to the subject: by email or by one of its orders. */
export function subjectRows(db: Executor, table: 'claims' | 'conversions', brandId: string, subject: CustomerSubject): Knex.QueryBuilder {
  return db(table)
    .where({ brand_id: brandId })
    .andWhere((where) => {
      if (subject.email) where.orWhere({ email_normalized: subject.email });
      if (subject.order_ids.length > 0) where.orWhereIn('order_id', subject.order_ids);
      if (!subject.email && subject.order_ids.length === 0) where.whereRaw('false');
    });
}
