import type { Knex } from 'knex';
import { type Brand } from '../brands/brand';
import { Conflict } from '../errors';
import { enqueueMail } from '../mail/enqueue-mail';
import { linkAgainMail, welcomeMail } from '../mail/program-mail';
import { shareLink } from './share-link';
import { type Advocate, getAdvocate } from './advocates';
import { normalizeEmail } from './normalize';
import { enrollAdvocate } from './enroll-advocate';

export interface JoinInput {
  email: string;
  first_name: string;
  last_name?: string | null;
}

/** What the store's backend hears of a join: the code and link, never anyone's figures. */
export interface Joined {
  joined: boolean;
  first_name: string;
  referral_code: string;
  share_link: string | null;
}

/** A storefront join writes at most one email a day to an address it has not verified (docs/merchants/storefront.md). */
const DAY_MS = 86_400_000;

async function advocateOfEmail(trx: Knex.Transaction, brand: Brand, email: string): Promise<{ advocate_id: string; status: string } | undefined> {
  return trx('advocates').where({ brand_id: brand.brand_id, email_normalized: normalizeEmail(email) }).first('advocate_id', 'status');
}

/** A new advocate from a join: once per email, with their consent's time and the welcome email. */
async function enrollJoiner(trx: Knex.Transaction, brand: Brand, input: JoinInput): Promise<Advocate> {
  const advocate = await enrollAdvocate(trx, brand.brand_id, { email: input.email, first_name: input.first_name, last_name: input.last_name ?? null });
  await trx('advocates').where({ brand_id: brand.brand_id, advocate_id: advocate.advocate_id }).update({ consent_at: trx.fn.now() });
  return advocate;
}

function joinedAs(brand: Brand, advocate: Advocate, joined: boolean): Joined {
  const code = advocate.referral_codes[0]!;
  return { joined, first_name: advocate.first_name, referral_code: code, share_link: shareLink(brand, code) };
}

/**
 * The store's backend joins its own customer (the secret key; docs/merchants/storefront.md): an
 * advocate is created once per email; joining again answers the same code and link (nothing else:
 * no balance, no name change). A deactivated advocate cannot rejoin (409).
 */
export async function joinAdvocate(trx: Knex.Transaction, brand: Brand, input: JoinInput): Promise<Joined> {
  const existing = await advocateOfEmail(trx, brand, input.email);
  if (!existing) return joinedAs(brand, await enrollJoiner(trx, brand, input), true);
  if (existing.status !== 'active') throw new Conflict('this address cannot join the referral program');
  return joinedAs(brand, await getAdvocate(trx, brand.brand_id, Number(existing.advocate_id)), false);
}

/**
 * A shopper joins with an address the service cannot trust (a storefront page, the Shopify app
 * proxy's form): whoever typed it hears the same for any address, and what is the address's own
 * goes to it by email. A new address → the advocate and the welcome email; an advocate's → their
 * code and link again, unless the program wrote it a welcome or link in the last day (a join must
 * not make the brand write to an address over and over); a deactivated one → nothing. Answers the
 * advocate it created, if any.
 */
export async function joinByEmail(trx: Knex.Transaction, brand: Brand, input: JoinInput): Promise<{ created: Advocate | null }> {
  const existing = await advocateOfEmail(trx, brand, input.email);
  if (!existing) return { created: await enrollJoiner(trx, brand, input) };
  if (existing.status !== 'active') return { created: null };
  const linkAgain = linkAgainMail(brand.brand_id, Number(existing.advocate_id));
  // By their keys (the outbox's unique index): the welcome, and today's and yesterday's link.
  const earlier = [welcomeMail(brand.brand_id, Number(existing.advocate_id)), linkAgainMail(brand.brand_id, Number(existing.advocate_id), new Date(Date.now() - DAY_MS))];
  const recent = await trx('mail_messages')
    .where({ brand_id: brand.brand_id })
    .whereIn('dedupe_key', [linkAgain, ...earlier].map((intent) => intent.dedupeKey))
    .where('created_at', '>', trx.raw("now() - interval '1 day'"))
    .first('message_id');
  if (!recent) await enqueueMail(trx, [linkAgain]);
  return { created: null };
}
