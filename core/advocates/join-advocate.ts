import type { Knex } from 'knex';
import { type Brand } from '../brands/brand';
import { Conflict } from '../errors';
import { shareLink } from './share-link';
import { getAdvocate } from './advocates';
import { normalizeEmail } from './normalize';
import { enrollAdvocate } from './enroll-advocate';

export interface JoinInput {
  email: string;
  first_name: string;
  last_name?: string | null;
}

/** What a shopper who joins sees: their code and link, never anyone's figures (a join is answered to whoever knows the address). */
export interface Joined {
  joined: boolean;
  first_name: string;
  referral_code: string;
  share_link: string | null;
}

/**
 * A shopper joins the program from the store (docs/merchants/storefront.md): an advocate is created once per
 * email, with their consent's time and the welcome email; joining again answers the same code and
 * link (nothing else: no balance, no name change). A deactivated advocate cannot rejoin (409).
 */
export async function joinAdvocate(trx: Knex.Transaction, brand: Brand, input: JoinInput): Promise<Joined> {
  const existing: { advocate_id: string; status: string } | undefined = await trx('advocates')
    .where({ brand_id: brand.brand_id, email_normalized: normalizeEmail(input.email) })
    .first('advocate_id', 'status');
  if (existing) {
    if (existing.status !== 'active') throw new Conflict('this address cannot join the referral program');
    const advocate = await getAdvocate(trx, brand.brand_id, Number(existing.advocate_id));
    const code = advocate.referral_codes[0]!;
    return { joined: false, first_name: advocate.first_name, referral_code: code, share_link: shareLink(brand, code) };
  }
  const advocate = await enrollAdvocate(trx, brand.brand_id, { email: input.email, first_name: input.first_name, last_name: input.last_name ?? null });
  await trx('advocates').where({ brand_id: brand.brand_id, advocate_id: advocate.advocate_id }).update({ consent_at: trx.fn.now() });
  const code = advocate.referral_codes[0]!;
  return { joined: true, first_name: advocate.first_name, referral_code: code, share_link: shareLink(brand, code) };
}
