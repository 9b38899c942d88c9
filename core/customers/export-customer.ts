import type { ClaimStatus } from '../claims/claim-status';
import type { ConversionStatus } from '../conversions/conversion-status';
import type { Executor } from '../db/transaction';
import { type CustomerSubject, subjectRows } from './customer-subject';

export interface ExportedConversion {
  conversion_id: string;
  order_id: string | null;
  email: string;
  customer_name: string | null;
  visitor_id: string | null;
  status: ConversionStatus;
  order_value: string;
  currency: string | null;
  referral_code: string | null;
  created_at: Date;
}

export interface ExportedClaim {
  claim_id: string;
  order_id: string | null;
  email: string;
  customer_name: string | null;
  phone: string | null;
  visitor_id: string | null;
  status: ClaimStatus;
  referral_code: string;
  created_at: Date;
}

export interface ExportedAdvocate {
  advocate_id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  created_at: Date;
}

export interface CustomerExport {
  customer_email: string | null;
  orders: string[];
  advocate: ExportedAdvocate | null;
  claims: ExportedClaim[];
  conversions: ExportedConversion[];
}

/** Everything a brand holds about one customer (a data-subject access request). */
export async function exportCustomer(db: Executor, brandId: string, subject: CustomerSubject): Promise<CustomerExport> {
  const conversions: ExportedConversion[] = await subjectRows(db, 'conversions', brandId, subject).select(
    'conversion_id', 'order_id', 'email', 'customer_name', 'visitor_id', 'status', 'order_value', 'currency', 'referral_code', 'created_at',
  );
  const claims: ExportedClaim[] = await subjectRows(db, 'claims', brandId, subject).select(
    'claim_id', 'order_id', 'email', 'customer_name', 'phone', 'visitor_id', 'status', 'referral_code', 'created_at',
  );
  const advocate: ExportedAdvocate | undefined = subject.email
    ? await db('advocates').select('advocate_id', 'email', 'first_name', 'last_name', 'created_at').where({ brand_id: brandId, email_normalized: subject.email }).first()
    : undefined;
  return { customer_email: subject.email, orders: subject.order_ids, advocate: advocate ?? null, claims, conversions };
}
