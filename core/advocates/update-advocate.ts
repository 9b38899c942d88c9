import type { Knex } from 'knex';
import { Conflict } from '../errors';
import { type Advocate, getAdvocate, lockAdvocate } from './advocates';
import { normalizeEmail } from './normalize';

export interface AdvocateChanges {
  email?: string;
  first_name?: string;
  last_name?: string | null;
}

/**
 * A merchant corrects an advocate's name or email. A new email another advocate of the brand has
 * is a conflict naming them; the codes, ledger and history stay the advocate's.
 */
export async function updateAdvocate(trx: Knex.Transaction, brandId: string, advocateId: number, changes: AdvocateChanges): Promise<Advocate> {
  await lockAdvocate(trx, brandId, advocateId);
  const update: Record<string, unknown> = {};
  if (changes.first_name !== undefined) update.first_name = changes.first_name;
  if (changes.last_name !== undefined) update.last_name = changes.last_name;
  if (changes.email !== undefined) {
    const emailNormalized = normalizeEmail(changes.email);
    const other = await trx('advocates').where({ brand_id: brandId, email_normalized: emailNormalized }).whereNot({ advocate_id: advocateId }).first('advocate_id');
    if (other) throw new Conflict(`an advocate with email ${changes.email} already exists`, { advocate_id: Number(other.advocate_id) });
    Object.assign(update, { email: changes.email.trim(), email_normalized: emailNormalized });
  }
  if (Object.keys(update).length > 0) {
    await trx('advocates')
      .where({ brand_id: brandId, advocate_id: advocateId })
      .update({ ...update, updated_at: trx.fn.now() })
      .catch((error: { code?: string }) => {
        // Another request gave that email to an advocate meanwhile (the unique key decides).
        throw error.code === '23505' ? new Conflict(`an advocate with email ${changes.email} already exists`) : error;
      });
  }
  return getAdvocate(trx, brandId, advocateId);
}
