import type { Knex } from 'knex';
import type { AdvocateStatus } from './advocate-status';
import { type Advocate, getAdvocate, lockAdvocate } from './advocates';

/**
 * A merchant deactivates an advocate: from now on their codes resolve as unknown (no new
 * conversion, visit, claim or eligibility), while their conversions, rewards, ledger and payouts
 * stay, and rewards already earned stay payable. Deactivating a deactivated advocate changes
 * nothing (deactivated_at keeps the first time). Unknown advocate: NotFound.
 */
export async function deactivateAdvocate(trx: Knex.Transaction, brandId: string, advocateId: number): Promise<Advocate> {
  return setStatus(trx, brandId, advocateId, 'deactivated');
}

/** Undoes deactivateAdvocate: their codes attribute again, from now on (nothing missed meanwhile is credited). */
export async function reactivateAdvocate(trx: Knex.Transaction, brandId: string, advocateId: number): Promise<Advocate> {
  return setStatus(trx, brandId, advocateId, 'active');
}

async function setStatus(trx: Knex.Transaction, brandId: string, advocateId: number, status: AdvocateStatus): Promise<Advocate> {
  await lockAdvocate(trx, brandId, advocateId);
  await trx('advocates')
    .where({ brand_id: brandId, advocate_id: advocateId })
    .whereNot({ status })
    .update({ status, deactivated_at: status === 'deactivated' ? trx.fn.now() : null, updated_at: trx.fn.now() });
  return getAdvocate(trx, brandId, advocateId);
}
