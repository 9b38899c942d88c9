import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import { recordAudit } from '../audit/audit-log';
import type { Executor } from '../db/transaction';

/** Why an address gets no more program emails from a brand. */
export type SuppressionReason = 'unsubscribed' | 'bounced';

/** SQL: the address in `email` (normalized) of the brand in `brand` has not unsubscribed or bounced. Every statement that writes a message checks it. */
export const notSuppressed = (brand: string, email: string) =>
  `NOT EXISTS (SELECT 1 FROM mail_suppressions s WHERE s.brand_id = ${brand} AND s.email_normalized = ${email})`;

/** The one-click unsubscribe (RFC 8058): the address gets none of the brand's program emails again. Repeating it changes nothing. */
export async function suppressAddress(db: Executor, brandId: string, email: string, reason: SuppressionReason, detail: string | null = null): Promise<void> {
  await db('mail_suppressions')
    .insert({ brand_id: brandId, email_normalized: normalizeEmail(email), reason, detail })
    .onConflict(['brand_id', 'email_normalized'])
    .ignore();
}

/** Which of these (normalized) addresses a brand may no longer write to: `brand_id:email` keys. */
export async function suppressedAmong(db: Knex, pairs: Array<{ brand_id: string; email_normalized: string }>): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const { rows } = await db.raw(
    `SELECT s.brand_id, s.email_normalized FROM mail_suppressions s
       JOIN json_to_recordset(?::json) AS k(brand_id uuid, email_normalized text) ON s.brand_id = k.brand_id AND s.email_normalized = k.email_normalized`,
    [JSON.stringify(pairs)],
  );
  return new Set((rows as Array<{ brand_id: string; email_normalized: string }>).map((row) => `${row.brand_id}:${row.email_normalized}`));
}

/** An address that gets none of the brand's program emails, and why. */
export interface Suppression {
  email: string;
  reason: SuppressionReason;
  detail: string | null;
  created_at: string;
}

/** The brand's suppressed addresses, newest first (at most `limit`). */
export async function listSuppressions(db: Executor, brandId: string, limit = 200): Promise<Suppression[]> {
  const rows: Array<{ email_normalized: string; reason: SuppressionReason; detail: string | null; created_at: Date }> = await db('mail_suppressions')
    .where({ brand_id: brandId })
    .orderBy('created_at', 'desc')
    .limit(limit)
    .select('email_normalized', 'reason', 'detail', 'created_at');
  return rows.map((row) => ({ email: row.email_normalized, reason: row.reason, detail: row.detail, created_at: new Date(row.created_at).toISOString() }));
}

/** The advocate asked to get the program's emails again: the address leaves the list (audited). Returns whether it was on it. */
export async function liftSuppression(db: Executor, brandId: string, email: string, actor: string): Promise<boolean> {
  const removed = await db('mail_suppressions').where({ brand_id: brandId, email_normalized: normalizeEmail(email) }).delete().returning('reason');
  if (removed.length > 0) await recordAudit(db, { brandId, actor, action: 'mail.suppression_remove', subject: `mail_suppression:${normalizeEmail(email)}`, before: { reason: removed[0].reason } });
  return removed.length > 0;
}
