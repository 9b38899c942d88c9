import type { ClaimStatus } from '../claims/claim-status';
import type { ConversionStatus } from '../conversions/conversion-status';
import type { Executor } from '../db/transaction';
import { type CustomerSubject, subjectRows } from './customer-subject';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every column we keep is exported (a subject's right of access covers all of it). */
type Row = Record<string, unknown>;

export interface ExportedConversion extends Row {
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
  /** The order's product lines. */
  products: Row[];
}

export interface ExportedClaim extends Row {
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

export interface ExportedAdvocate extends Row {
  advocate_id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  created_at: Date;
  referral_codes: Row[];
  reward_ledger: Row[];
}

export interface CustomerExport {
  customer_email: string | null;
  orders: string[];
  customer_ids: string[];
  advocate: ExportedAdvocate | null;
  claims: ExportedClaim[];
  conversions: ExportedConversion[];
  /** Refunds of those claims and conversions. */
  refunds: Row[];
  /** Referral-link visits of the visitor ids those claims and conversions carry. */
  visits: Row[];
}

/** Everything a brand holds about one customer (a data-subject access request). */
export async function exportCustomer(db: Executor, brandId: string, subject: CustomerSubject): Promise<CustomerExport> {
  const conversionRows: Row[] = await subjectRows(db, 'conversions', brandId, subject).select('*').orderBy('conversion_id');
  const claims = (await subjectRows(db, 'claims', brandId, subject).select('*').orderBy('claim_id')) as ExportedClaim[];
  const conversionIds = conversionRows.map((row) => row.conversion_id as string);
  const claimIds = claims.map((row) => row.claim_id);
  const products: Row[] = await db('conversion_products').where({ brand_id: brandId }).whereIn('conversion_id', conversionIds).orderBy(['conversion_id', 'line_no']);
  const conversions = conversionRows.map((row) => ({
    ...row,
    products: products.filter((product) => String(product.conversion_id) === String(row.conversion_id)),
  })) as ExportedConversion[];
  const refunds: Row[] = await db('refunds')
    .where({ brand_id: brandId })
    .andWhere((where) => where.whereIn('conversion_id', conversionIds).orWhereIn('claim_id', claimIds))
    .orderBy('refund_pk');
  // Visits are keyed by uuid; a claim's visitor_id is free text and may be anything.
  const visitorIds = [...new Set([...conversions, ...claims].map((row) => String(row.visitor_id ?? '').toLowerCase()).filter((id) => UUID.test(id)))];
  const visits: Row[] = await db('visits').where({ brand_id: brandId }).whereIn('visitor_id', visitorIds).orderBy('visit_id');
  return { customer_email: subject.email, orders: subject.order_ids, customer_ids: subject.customer_ids ?? [], advocate: await exportAdvocate(db, brandId, subject), claims, conversions, refunds, visits };
}

/** The customer as an advocate (same email): their row, codes and reward ledger. */
async function exportAdvocate(db: Executor, brandId: string, subject: CustomerSubject): Promise<ExportedAdvocate | null> {
  if (!subject.email) return null;
  const advocate: Row | undefined = await db('advocates').where({ brand_id: brandId, email_normalized: subject.email }).first();
  if (!advocate) return null;
  const key = { brand_id: brandId, advocate_id: advocate.advocate_id };
  return {
    ...advocate,
    referral_codes: await db('referral_codes').where(key).orderBy('created_at'),
    reward_ledger: await db('reward_ledger').where(key).orderBy('entry_id'),
  } as ExportedAdvocate;
}
