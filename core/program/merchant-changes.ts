import type { Knex } from 'knex';
import { type Advocate, type CreateAdvocateInput, addReferralCode, getAdvocate } from '../advocates/advocates';
import type { AdvocateStatus } from '../advocates/advocate-status';
import type { CodeKind } from '../advocates/code-kind';
import { deactivateAdvocate, reactivateAdvocate } from '../advocates/deactivate-advocate';
import { enrollAdvocate } from '../advocates/enroll-advocate';
import { type AdvocateChanges, updateAdvocate } from '../advocates/update-advocate';
import { changedFields, recordAudit } from '../audit/audit-log';
import { type ApiKeyKind, type IssuedApiKey, createApiKey, revokeApiKey } from '../brands/api-keys';
import { type Brand, type BrandSettings, type CreateBrandInput, type Plan, createBrand, getBrand, updateBrand } from '../brands/brand';
import { type MarkPaidResult, type PaidRow, markPaid } from '../payouts/payouts';

/**
 * What a merchant changes in their program — from the dashboard, over REST or in the Shopify admin
 * — each done and recorded in the audit log in one transaction (docs/merchants/merchant-accounts.md).
 * `actor` names who: a user's email, `api_key:<id>`, a Shopify staff member, the operator.
 */

/** A new brand (the operator's), recorded with what it was given, and its first API key (`label`). */
export async function openBrand(trx: Knex.Transaction, input: CreateBrandInput, secret: string, label: string, actor: string): Promise<{ brand: Brand; key: IssuedApiKey }> {
  const brand = await createBrand(trx, input);
  await recordAudit(trx, { brandId: brand.brand_id, actor, action: 'brand.create', subject: 'brand', after: { ...input, currency: brand.currency } });
  return { brand, key: await issueApiKey(trx, brand.brand_id, secret, label, actor) };
}

/** The program's settings (and, from the CLI, the plan); the audit log keeps the fields that moved. */
export async function changeSettings(trx: Knex.Transaction, brandId: string, patch: Partial<BrandSettings> & { name?: string; plan?: Plan }, actor: string): Promise<Brand> {
  const before = await getBrand(trx, brandId);
  const after = await updateBrand(trx, brandId, patch);
  const changed = changedFields(before as unknown as Record<string, unknown>, Object.fromEntries(Object.keys(patch).map((field) => [field, after[field as keyof Brand]])));
  if (Object.keys(changed.after).length > 0) await recordAudit(trx, { brandId, actor, action: 'brand.settings', subject: 'brand', ...changed });
  return after;
}

export async function issueApiKey(trx: Knex.Transaction, brandId: string, secret: string, label: string | null, actor: string, kind: ApiKeyKind = 'secret'): Promise<IssuedApiKey> {
  const key = await createApiKey(trx, brandId, secret, label, kind);
  await recordAudit(trx, { brandId, actor, action: 'api_key.create', subject: `api_key:${key.key_id}`, after: { label, kind, key_prefix: key.key_prefix } });
  return key;
}

export async function withdrawApiKey(trx: Knex.Transaction, brandId: string, keyId: string, actor: string) {
  const key = await revokeApiKey(trx, brandId, keyId);
  await recordAudit(trx, { brandId, actor, action: 'api_key.revoke', subject: `api_key:${key.key_id}`, before: { label: key.label, key_prefix: key.key_prefix }, after: { revoked_at: key.revoked_at } });
  return key;
}

const advocateFacts = (advocate: Advocate) => ({ email: advocate.email, first_name: advocate.first_name, last_name: advocate.last_name, codes: advocate.referral_codes });

export async function addAdvocate(trx: Knex.Transaction, brandId: string, input: CreateAdvocateInput, actor: string): Promise<Advocate> {
  const advocate = await enrollAdvocate(trx, brandId, input);
  await recordAudit(trx, { brandId, actor, action: 'advocate.create', subject: `advocate:${advocate.advocate_id}`, after: advocateFacts(advocate) });
  return advocate;
}

export async function editAdvocate(trx: Knex.Transaction, brandId: string, advocateId: number, changes: AdvocateChanges, actor: string): Promise<Advocate> {
  const before = await getAdvocate(trx, brandId, advocateId);
  const after = await updateAdvocate(trx, brandId, advocateId, changes);
  const changed = changedFields(advocateFacts(before), advocateFacts(after));
  if (Object.keys(changed.after).length > 0) await recordAudit(trx, { brandId, actor, action: 'advocate.update', subject: `advocate:${advocateId}`, ...changed });
  return after;
}

export async function addAdvocateCode(trx: Knex.Transaction, brandId: string, advocateId: number, code: string, kind: CodeKind, actor: string): Promise<Advocate> {
  await getAdvocate(trx, brandId, advocateId);
  const added = await addReferralCode(trx, brandId, advocateId, code, false, kind);
  await recordAudit(trx, { brandId, actor, action: 'advocate.add_code', subject: `advocate:${advocateId}`, after: { code: added, kind } });
  return getAdvocate(trx, brandId, advocateId);
}

/** Deactivates (their codes stop attributing) or reactivates an advocate; the audit log records a real change only. */
export async function changeAdvocateStatus(trx: Knex.Transaction, brandId: string, advocateId: number, status: AdvocateStatus, actor: string): Promise<Advocate> {
  const before = await getAdvocate(trx, brandId, advocateId);
  const after = await (status === 'deactivated' ? deactivateAdvocate : reactivateAdvocate)(trx, brandId, advocateId);
  if (before.status !== after.status) {
    await recordAudit(trx, { brandId, actor, action: status === 'deactivated' ? 'advocate.deactivate' : 'advocate.reactivate', subject: `advocate:${advocateId}`, before: { status: before.status }, after: { status: after.status } });
  }
  return after;
}

export async function recordPayouts(trx: Knex.Transaction, brand: Brand, rows: PaidRow[], actor: string): Promise<MarkPaidResult> {
  const result = await markPaid(trx, brand, rows, actor);
  if (result.recorded > 0) {
    await recordAudit(trx, { brandId: brand.brand_id, actor, action: 'payouts.mark_paid', subject: 'payouts', after: { recorded: result.recorded, already_recorded: result.already_recorded, total_paid: result.total_paid } });
  }
  return result;
}
