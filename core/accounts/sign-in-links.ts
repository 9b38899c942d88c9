import type { Knex } from 'knex';
import { INVITATION_LINK_TTL_MINUTES, createLoginLink } from '../dashboard/dashboard-sign-in';
import { normalizeEmail } from '../advocates/normalize';
import { lockKey } from '../db/advisory-lock';
import { enqueueAccountMail } from './account-mail';
import { type Actor, type MerchantRole, addUser, membershipsOf } from './merchant-users';

/** Sign-in links one person may be mailed per brand in an hour; more asks are answered alike and send nothing. */
export const SIGN_IN_LINKS_PER_HOUR = 5;

export interface LinkSettings {
  /** The dashboard's public origin (PUBLIC_URL): the links point at it. */
  publicUrl: string;
  /** Seals the link in the outbox (key-encryption.ts). */
  secret: string;
}

/** The address of a one-time link's confirm page (GET shows a button; POST signs in). */
export function loginUrl(publicUrl: string, brandId: string, token: string): string {
  const url = new URL(`${publicUrl}/dashboard/login`);
  url.searchParams.set('brand', brandId);
  url.searchParams.set('token', token);
  return url.toString();
}

/**
 * Someone asked for a sign-in link at /dashboard/sign-in: every brand the address belongs to gets
 * one emailed (one message per brand, so a person in several picks one by the link they open).
 * The caller answers the same whatever this finds: returns how many were queued, for tests and logs.
 */
export async function requestSignInLinks(trx: Knex.Transaction, email: string, settings: LinkSettings): Promise<number> {
  let queued = 0;
  // One request for an address at a time: the hourly count below is read, then added to.
  await lockKey(trx, `sign-in:${normalizeEmail(email)}`);
  for (const user of await membershipsOf(trx, email)) {
    const recent = await trx('dashboard_login_links')
      .where({ brand_id: user.brand_id, user_id: user.user_id })
      .andWhere('created_at', '>', trx.raw(`now() - interval '1 hour'`))
      .count({ count: '*' })
      .first();
    if (Number(recent?.count ?? 0) >= SIGN_IN_LINKS_PER_HOUR) continue;
    const link = await createLoginLink(trx, user.brand_id, user.user_id);
    await enqueueAccountMail(trx, {
      brandId: user.brand_id,
      template: 'merchant_sign_in',
      to: user.email,
      dedupeKey: `merchant_sign_in:${user.user_id}:${link.expires_at.getTime()}:${link.token.slice(0, 8)}`,
      link: loginUrl(settings.publicUrl, user.brand_id, link.token),
      secret: settings.secret,
    });
    queued += 1;
  }
  return queued;
}

/** The inviter as the invitation names them: a person's email address, never an operator's or a shop's label ("Your team" then). */
function personNamed(actor: string): string | undefined {
  return /^[^\s@()]+@[^\s@()]+$/.test(actor) ? actor : undefined;
}

/**
 * Invites a person to the brand: adds them as a user with `role` and emails them a sign-in link
 * (their first), in one transaction. The audit log names who invited them.
 */
export async function inviteUser(trx: Knex.Transaction, brandId: string, input: { email: string; role: MerchantRole }, actor: Actor, settings: LinkSettings) {
  const user = await addUser(trx, brandId, input, actor);
  const link = await createLoginLink(trx, brandId, user.user_id, INVITATION_LINK_TTL_MINUTES);
  await enqueueAccountMail(trx, {
    brandId,
    template: 'merchant_invitation',
    to: user.email,
    dedupeKey: `merchant_invitation:${user.user_id}`,
    link: loginUrl(settings.publicUrl, brandId, link.token),
    secret: settings.secret,
    invitedBy: personNamed(actor.name),
    role: user.role,
  });
  return user;
}
