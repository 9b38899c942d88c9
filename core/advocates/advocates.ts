import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { lookUpByKeys } from '../db/look-up-by-keys';
import { statementOnce } from '../db/prepared-statement';
import type { Executor } from '../db/transaction';
import { Conflict, Invalid, NotFound } from '../errors';
import type { AdvocateStatus } from './advocate-status';
import type { CodeKind } from './code-kind';
import { normalizeCode, normalizeEmail } from './normalize';

export interface Advocate {
  advocate_id: number;
  brand_id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  referral_codes: string[];
  status: AdvocateStatus;
  deactivated_at: string | null;
  created_at: string;
  /** When the advocate or their codes last changed (GET /advocates?updated_since= reads it). */
  updated_at: string;
}

export interface CreateAdvocateInput {
  email: string;
  first_name: string;
  last_name?: string | null;
  /** The referral code to give; generated from the first name when omitted. */
  code?: string;
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I look-alikes

export function generateCode(firstName: string): string {
  const stem = firstName.normalize('NFKD').replace(/[^A-Za-z]/g, '').toUpperCase().slice(0, 8) || 'REF';
  const suffix = Array.from(randomBytes(5), (byte) => CODE_ALPHABET[byte % CODE_ALPHABET.length]).join('');
  return `${stem}${suffix}`;
}

const CODE_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;

/** A code chosen by a person (not generated) must be usable in a URL and at a checkout. */
function assertValidCode(code: string): void {
  if (!CODE_PATTERN.test(code)) throw new Invalid('code must be 3-64 letters, digits, "-" or "_"');
}

export async function createAdvocate(db: Executor, brandId: string, input: CreateAdvocateInput): Promise<Advocate> {
  const emailNormalized = normalizeEmail(input.email);
  const existing: AdvocateRow | undefined = await db('advocates').where({ brand_id: brandId, email_normalized: emailNormalized }).first();
  if (existing) throw new Conflict(`an advocate with email ${input.email} already exists`, { advocate_id: Number(existing.advocate_id) });
  if (input.code !== undefined) assertValidCode(input.code);
  const [row] = (await db('advocates')
    .insert({
      brand_id: brandId,
      email: input.email.trim(),
      email_normalized: emailNormalized,
      first_name: input.first_name,
      last_name: input.last_name ?? null,
    })
    .returning('*')) as [AdvocateRow];
  const code = await addReferralCode(db, brandId, Number(row.advocate_id), input.code ?? generateCode(input.first_name), input.code === undefined);
  return toAdvocate(row, [code]);
}

/**
 * Gives an advocate a code (`referral`) or maps a platform coupon code to them (`coupon`).
 * A generated code is retried on the rare collision; a chosen one that is taken is a conflict.
 */
export async function addReferralCode(
  db: Executor,
  brandId: string,
  advocateId: number,
  code: string,
  generated = false,
  kind: CodeKind = 'referral',
): Promise<string> {
  if (!generated) assertValidCode(code);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const candidate = attempt === 0 || !generated ? code : `${code}${CODE_ALPHABET[attempt]}`;
    const inserted = await db('referral_codes')
      .insert({ brand_id: brandId, code_normalized: normalizeCode(candidate), code: candidate, advocate_id: advocateId, kind })
      .onConflict(['brand_id', 'code_normalized'])
      .ignore()
      .returning('code');
    if (inserted.length > 0) {
      // A new code is a change of the advocate: the Medusa plugin's pull (updated_since) sees it.
      await db('advocates').where({ brand_id: brandId, advocate_id: advocateId }).update({ updated_at: db.fn.now() });
      return candidate;
    }
    if (!generated) throw new Conflict(`code ${candidate} is already in use`);
  }
  throw new Conflict('could not generate a unique referral code');
}

interface AdvocateRow {
  advocate_id: string;
  brand_id: string;
  email: string;
  first_name: string;
  last_name: string | null;
  status: AdvocateStatus;
  deactivated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toAdvocate(row: AdvocateRow, codes: string[]): Advocate {
  return {
    advocate_id: Number(row.advocate_id),
    brand_id: row.brand_id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    referral_codes: codes,
    status: row.status,
    deactivated_at: row.deactivated_at === null ? null : new Date(row.deactivated_at).toISOString(),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export async function listAdvocates(db: Executor, brandId: string): Promise<Advocate[]> {
  const rows: AdvocateRow[] = await db('advocates').where({ brand_id: brandId }).orderBy('advocate_id');
  const codes: Array<{ advocate_id: string; code: string }> = await db('referral_codes')
    .select('advocate_id', 'code')
    .where({ brand_id: brandId })
    .orderBy('created_at');
  return rows.map((row) =>
    toAdvocate(row, codes.filter((code) => code.advocate_id === row.advocate_id).map((code) => code.code)),
  );
}

/** Several advocates with their codes, in two statements, in the order of `advocateIds` (absent ids are left out). */
export async function advocatesByIds(db: Executor, brandId: string, advocateIds: number[]): Promise<Advocate[]> {
  if (advocateIds.length === 0) return [];
  const rows: AdvocateRow[] = await db('advocates').where({ brand_id: brandId }).whereIn('advocate_id', advocateIds);
  const codes: Array<{ advocate_id: string; code: string }> = await db('referral_codes')
    .select('advocate_id', 'code')
    .where({ brand_id: brandId })
    .whereIn('advocate_id', advocateIds)
    .orderBy('created_at');
  const byId = new Map(rows.map((row) => [Number(row.advocate_id), row]));
  return advocateIds.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toAdvocate(row, codes.filter((code) => Number(code.advocate_id) === id).map((code) => code.code))] : [];
  });
}

export async function getAdvocate(db: Executor, brandId: string, advocateId: number): Promise<Advocate> {
  const row: AdvocateRow | undefined = await db('advocates').where({ brand_id: brandId, advocate_id: advocateId }).first();
  if (!row) throw new NotFound(`advocate ${advocateId} not found`);
  const codes = await db('referral_codes').where({ brand_id: brandId, advocate_id: advocateId }).orderBy('created_at').pluck('code');
  return toAdvocate(row, codes);
}

export interface ReferralCodeOwner {
  code: string;
  kind: CodeKind;
  advocate_id: number;
  advocate_email_normalized: string;
  advocate_first_name: string;
}

interface CodeOwnerRow {
  code: string;
  code_normalized: string;
  kind: CodeKind;
  advocate_id: string;
  email_normalized: string;
  first_name: string;
}

/**
 * referral_codes joined to their active advocates, selecting what a ReferralCodeOwner holds: every
 * code look-up (orders, visits, claims, eligibility) goes through it, so a deactivated advocate's
 * codes resolve as unknown everywhere at once.
 */
export function codeOwners(db: Executor): Knex.QueryBuilder {
  return db('referral_codes as c')
    .join('advocates as a', function joinAdvocate() {
      this.on('a.brand_id', 'c.brand_id').andOn('a.advocate_id', 'c.advocate_id').andOnVal('a.status', '=', 'active' satisfies AdvocateStatus);
    })
    .select('c.code', 'c.code_normalized', 'c.kind', 'c.advocate_id', 'a.email_normalized', 'a.first_name');
}

export function toCodeOwner(row: CodeOwnerRow): ReferralCodeOwner {
  return {
    code: row.code,
    kind: row.kind,
    advocate_id: Number(row.advocate_id),
    advocate_email_normalized: row.email_normalized,
    advocate_first_name: row.first_name,
  };
}

/** Resolves a code (case-insensitive) to its advocate within one brand. */
export async function findReferralCode(db: Executor, brandId: string, code: string): Promise<ReferralCodeOwner | null> {
  const row: CodeOwnerRow | undefined = await codeOwners(db).where({ 'c.brand_id': brandId, 'c.code_normalized': normalizeCode(code) }).first();
  return row ? toCodeOwner(row) : null;
}

/** A code named in some brand: the key ReferralCodesOf answers under. */
export function brandCodeKey(brandId: string, code: string): string {
  return `${brandId}:${normalizeCode(code)}`;
}

const codeOwnersByKey = statementOnce(1, (db, [keys]) =>
  lookUpByKeys(db, 'brand_id uuid, code_normalized text', keys!, codeOwners(db).select('c.brand_id').whereRaw('c.brand_id = k.brand_id AND c.code_normalized = k.code_normalized').limit(1)),
);

/**
 * Resolves the candidate codes of several orders, of any brands, in one query: their owners by
 * brandCodeKey (unknown codes are absent).
 */
export async function findReferralCodes(db: Executor, named: Array<{ brandId: string; code: string }>): Promise<Map<string, ReferralCodeOwner>> {
  const keys = new Map(named.map(({ brandId, code }) => [brandCodeKey(brandId, code), { brandId, code: normalizeCode(code) }]));
  if (keys.size === 0) return new Map();
  const pairs = [...keys.values()].map(({ brandId, code }) => ({ brand_id: brandId, code_normalized: code }));
  const rows: Array<CodeOwnerRow & { brand_id: string }> = (await codeOwnersByKey(db, [JSON.stringify(pairs)])).rows;
  return new Map(rows.map((row) => [`${row.brand_id}:${row.code_normalized}`, toCodeOwner(row)]));
}

/**
 * Takes the advocate's row lock: whatever spends the advocate's money (a redemption, a payout)
 * holds it, so two of them never spend the same money. Taken before any reward row's lock.
 */
export async function lockAdvocate(trx: Knex.Transaction, brandId: string, advocateId: number): Promise<void> {
  // FOR NO KEY UPDATE: serialises the advocate's money changes without conflicting with the KEY SHARE
  // locks rows referencing the advocate take (issue-rewards.ts says why that deadlocked).
  const row = await trx('advocates').select('advocate_id').where({ brand_id: brandId, advocate_id: advocateId }).forNoKeyUpdate().first();
  if (!row) throw new NotFound(`advocate ${advocateId} not found`);
}
