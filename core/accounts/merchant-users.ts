import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import { changedFields, recordAudit } from '../audit/audit-log';
import type { Executor } from '../db/transaction';
import { Conflict, Forbidden, Invalid, NotFound } from '../errors';

/**
 * The people who run a brand's program (docs/merchants/merchant-accounts.md). An owner manages everything,
 * users included; an admin changes the program, advocates, keys and payouts and invites admins
 * and viewers; a viewer sees and changes nothing.
 */
export const MERCHANT_ROLES = ['owner', 'admin', 'viewer'] as const;
export type MerchantRole = (typeof MERCHANT_ROLES)[number];

const RANK: Record<MerchantRole, number> = { viewer: 0, admin: 1, owner: 2 };
export const roleAtLeast = (role: MerchantRole, least: MerchantRole) => RANK[role] >= RANK[least];

export interface MerchantUser {
  user_id: number;
  brand_id: string;
  email: string;
  role: MerchantRole;
  invited_by: string | null;
  last_sign_in_at: string | null;
  created_at: string;
}

interface UserRow {
  user_id: string;
  brand_id: string;
  email: string;
  role: MerchantRole;
  invited_by: string | null;
  last_sign_in_at: Date | null;
  created_at: Date;
}

const toUser = (row: UserRow): MerchantUser => ({
  user_id: Number(row.user_id),
  brand_id: row.brand_id,
  email: row.email,
  role: row.role,
  invited_by: row.invited_by,
  last_sign_in_at: row.last_sign_in_at ? new Date(row.last_sign_in_at).toISOString() : null,
  created_at: new Date(row.created_at).toISOString(),
});

export async function listUsers(db: Executor, brandId: string): Promise<MerchantUser[]> {
  return ((await db('merchant_users').where({ brand_id: brandId }).orderBy('user_id')) as UserRow[]).map(toUser);
}

export async function getUser(db: Executor, brandId: string, userId: number): Promise<MerchantUser> {
  const row: UserRow | undefined = await db('merchant_users').where({ brand_id: brandId, user_id: userId }).first();
  if (!row) throw new NotFound(`user ${userId} not found`);
  return toUser(row);
}

/** Every brand an address belongs to, with the user it is there (sign-in by email). */
export async function membershipsOf(db: Executor, email: string): Promise<Array<MerchantUser & { brand_name: string }>> {
  const rows: Array<UserRow & { brand_name: string }> = await db('merchant_users as u')
    .join('brands as b', 'b.brand_id', 'u.brand_id')
    .where('u.email_normalized', normalizeEmail(email))
    .orderBy('b.name')
    .select('u.*', 'b.name as brand_name');
  return rows.map((row) => ({ ...toUser(row), brand_name: row.brand_name }));
}

/** Who may give which role: an owner any, an admin admin or viewer; a viewer none. */
function mayGrant(actorRole: MerchantRole, role: MerchantRole): void {
  if (actorRole === 'viewer') throw new Forbidden('a viewer cannot change users', {}, 'role_required');
  if (role === 'owner' && actorRole !== 'owner') throw new Forbidden('only an owner can make another owner', {}, 'role_required');
}

export interface Actor {
  /** Shown in the audit log. */
  name: string;
  role: MerchantRole;
}

/**
 * Adds a user to the brand (or, with `existing: 'keep'`, returns the one already there). A taken
 * email is a 409 naming the user. The caller sends the invitation in the same transaction.
 */
export async function addUser(trx: Knex.Transaction, brandId: string, input: { email: string; role: MerchantRole }, actor: Actor): Promise<MerchantUser> {
  mayGrant(actor.role, input.role);
  const email = input.email.trim();
  const [row] = (await trx('merchant_users')
    .insert({ brand_id: brandId, email, email_normalized: normalizeEmail(email), role: input.role, invited_by: actor.name })
    .onConflict(['brand_id', 'email_normalized'])
    .ignore()
    .returning('*')) as UserRow[];
  if (!row) {
    const taken: UserRow = await trx('merchant_users').where({ brand_id: brandId, email_normalized: normalizeEmail(email) }).first();
    throw new Conflict(`${email} is already a user of this brand (user ${taken.user_id}, ${taken.role})`, { user_id: Number(taken.user_id) });
  }
  const user = toUser(row);
  await recordAudit(trx, { brandId, actor: actor.name, action: 'user.invite', subject: `user:${user.user_id}`, after: { email: user.email, role: user.role } });
  return user;
}

/** A brand keeps at least one owner: the last one cannot be demoted or removed. */
async function keepsAnOwner(trx: Knex.Transaction, brandId: string, user: MerchantUser): Promise<void> {
  if (user.role !== 'owner') return;
  const owners = await trx('merchant_users').where({ brand_id: brandId, role: 'owner' }).forUpdate().select('user_id');
  if (owners.length <= 1) throw new Conflict(`${user.email} is the brand's only owner: make another user owner first`);
}

export async function changeRole(trx: Knex.Transaction, brandId: string, userId: number, role: MerchantRole, actor: Actor): Promise<MerchantUser> {
  const user = await getUser(trx, brandId, userId);
  mayGrant(actor.role, role);
  // An admin cannot demote an owner either.
  mayGrant(actor.role, user.role);
  if (user.role === role) return user;
  if (role !== 'owner') await keepsAnOwner(trx, brandId, user);
  await trx('merchant_users').where({ brand_id: brandId, user_id: userId }).update({ role });
  await recordAudit(trx, { brandId, actor: actor.name, action: 'user.role', subject: `user:${userId}`, before: { email: user.email, role: user.role }, after: { email: user.email, role } });
  return { ...user, role };
}

/** Removes a user; their links and sessions end with them (foreign keys cascade). */
export async function removeUser(trx: Knex.Transaction, brandId: string, userId: number, actor: Actor): Promise<MerchantUser> {
  const user = await getUser(trx, brandId, userId);
  mayGrant(actor.role, user.role);
  await keepsAnOwner(trx, brandId, user);
  await trx('merchant_users').where({ brand_id: brandId, user_id: userId }).delete();
  await recordAudit(trx, { brandId, actor: actor.name, action: 'user.remove', subject: `user:${userId}`, before: { email: user.email, role: user.role } });
  return user;
}

export function parseRole(value: string, field = 'role'): MerchantRole {
  if (!(MERCHANT_ROLES as readonly string[]).includes(value)) throw new Invalid(`${field} must be one of ${MERCHANT_ROLES.join(', ')}`);
  return value as MerchantRole;
}

/** A user's own notices: the daily digest and the review alert (docs/merchants/merchant-accounts.md "Notifications"). */
export interface NotificationChoices {
  digest_email: boolean;
  review_alert_email: boolean;
}

export async function notificationChoices(db: Executor, brandId: string, userId: number): Promise<NotificationChoices> {
  const row = await db('merchant_users').where({ brand_id: brandId, user_id: userId }).first('digest_email', 'review_alert_email');
  if (!row) throw new NotFound(`user ${userId} not found`);
  return { digest_email: row.digest_email, review_alert_email: row.review_alert_email };
}

/** A person changes which notices they get (their own, whatever their role); the audit log keeps what moved. */
export async function chooseNotifications(trx: Knex.Transaction, brandId: string, userId: number, choices: NotificationChoices, actor: Actor): Promise<NotificationChoices> {
  const before = await notificationChoices(trx, brandId, userId);
  await trx('merchant_users').where({ brand_id: brandId, user_id: userId }).update(choices);
  const changed = changedFields(before as unknown as Record<string, unknown>, choices as unknown as Record<string, unknown>);
  if (Object.keys(changed.after).length > 0) await recordAudit(trx, { brandId, actor: actor.name, action: 'user.notifications', subject: `user:${userId}`, ...changed });
  return choices;
}
