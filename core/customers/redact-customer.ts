import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { type CustomerSubject, subjectRows } from './customer-subject';

export interface Redaction {
  /** Rows anonymized per table. */
  conversions: number;
  claims: number;
  advocates: number;
}

/**
 * Replaces a customer's personal data in a brand's records by a placeholder (an erasure request);
 * the money (orders, refunds, rewards) stays, no longer tied to a person. An advocate with that
 * email is anonymized too, keeping their codes and ledger.
 */
export async function redactCustomer(trx: Knex.Transaction, brandId: string, subject: CustomerSubject): Promise<Redaction> {
  const placeholder = `redacted-${randomUUID()}@redacted.invalid`;
  // metadata.customer: the platform's id and phone of an email-less order's customer.
  const anonymous = { email: placeholder, email_normalized: placeholder, customer_name: null, visitor_id: null, metadata: trx.raw("metadata - 'customer'"), updated_at: trx.fn.now() };
  // customer_id and customer_ip: what the fraud rules compared (core/fraud).
  const conversions = await subjectRows(trx, 'conversions', brandId, subject).update({ ...anonymous, customer_id: null, customer_ip: null });
  const claims = await subjectRows(trx, 'claims', brandId, subject).update({ ...anonymous, phone: null });
  const advocates = subject.email
    ? await trx('advocates')
        .where({ brand_id: brandId, email_normalized: subject.email })
        .update({ email: placeholder, email_normalized: placeholder, first_name: 'Redacted', last_name: null })
    : 0;
  // Program emails written to them (sent or not) go: they name the person. A suppression stays, so erasure never restarts the mail.
  if (subject.email) await trx('mail_messages').where({ brand_id: brandId, recipient_normalized: subject.email }).delete();
  return { conversions, claims, advocates };
}
