import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { getBrand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import { Forbidden } from '../errors';

/** A sign-in link opens one session, once, within ten minutes of being printed. */
export const LOGIN_LINK_TTL_MINUTES = 10;
/** An invitation's link waits three days for its person to open it (still once); later they ask for a sign-in link. */
export const INVITATION_LINK_TTL_MINUTES = 3 * 24 * 60;
/** A session lasts twelve hours from sign-in, then the merchant asks the CLI for a new link. */
export const SESSION_TTL_HOURS = 12;

/** A sign-in link that was used, expired or never issued: the merchant needs a new one. */
export class LoginLinkRefused extends Forbidden {
  static override readonly code: string = 'login_link_refused';
}

const secret = () => randomBytes(32).toString('base64url');
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export interface LoginLink {
  brand_id: string;
  token: string;
  expires_at: Date;
}

/** A one-time sign-in token for the brand; only its hash is stored. */
export async function createLoginLink(db: Executor, brandId: string, userId: number | null = null, ttlMinutes = LOGIN_LINK_TTL_MINUTES): Promise<LoginLink> {
  await getBrand(db, brandId);
  // The brand's spent and expired links and sessions are of no further use: each new link sweeps them.
  await db('dashboard_login_links').where({ brand_id: brandId }).where('expires_at', '<', db.raw(`now() - interval '1 day'`)).delete();
  await db('dashboard_sessions').where({ brand_id: brandId }).where((q) => q.where('expires_at', '<', db.fn.now()).orWhereNotNull('ended_at')).delete();
  const token = secret();
  const expiresAt = new Date(Date.now() + ttlMinutes * 60_000);
  await db('dashboard_login_links').insert({ brand_id: brandId, token_hash: hashOf(token), expires_at: expiresAt, user_id: userId });
  return { brand_id: brandId, token, expires_at: expiresAt };
}

/** Why a link cannot be used; null while it can. */
async function linkRefusal(db: Executor, brandId: string, token: string): Promise<string | null> {
  const link = await findLink(db, brandId, token);
  if (!link) return 'This sign-in link is not valid. Ask for a new one with `referrals dashboard login --brand ID`.';
  if (link.used_at) return 'This sign-in link was already used: each link opens one session. Ask for a new one with `referrals dashboard login --brand ID`.';
  if (new Date(link.expires_at) <= new Date()) {
    return `This sign-in link expired (links last ${LOGIN_LINK_TTL_MINUTES} minutes). Ask for a new one with \`referrals dashboard login --brand ID\`.`;
  }
  return null;
}

function findLink(db: Executor, brandId: string, token: string): Promise<{ used_at: Date | null; expires_at: Date } | undefined> {
  return db('dashboard_login_links').where({ brand_id: brandId, token_hash: hashOf(token) }).first('used_at', 'expires_at');
}

/** Refuses a link that cannot open a session, saying why; reads only. Returns when it expires. */
export async function checkLoginLink(db: Executor, brandId: string, token: string): Promise<Date> {
  const refusal = await linkRefusal(db, brandId, token);
  if (refusal) throw new LoginLinkRefused(refusal);
  return new Date((await findLink(db, brandId, token))!.expires_at);
}

export interface DashboardSession {
  brand_id: string;
  /** The merchant user signed in; null for the operator's CLI link (who acts as an owner). */
  user_id: number | null;
  /** The cookie's value: `brand_id.secret`; only the secret's hash is stored. */
  cookie: string;
  csrf_token: string;
  expires_at: Date;
}

/**
 * Spends the link and opens a session in one transaction: the link's row is marked used only if it
 * still was not, so two requests racing with one link open one session.
 */
export async function redeemLoginLink(trx: Knex.Transaction, brandId: string, token: string, client: { ip?: string; userAgent?: string } = {}): Promise<DashboardSession> {
  const spent: Array<{ user_id: string | null }> = await trx('dashboard_login_links')
    .where({ brand_id: brandId, token_hash: hashOf(token) })
    .whereNull('used_at')
    .where('expires_at', '>', trx.fn.now())
    .update({ used_at: trx.fn.now() })
    .returning('user_id');
  // Counted from RETURNING, which every driver reports (the embedded one's row counts are not relied on).
  if (spent.length === 0) throw new LoginLinkRefused((await linkRefusal(trx, brandId, token)) ?? 'This sign-in link cannot be used.');
  const sessionSecret = secret();
  const userId = spent[0]!.user_id === null ? null : Number(spent[0]!.user_id);
  const session = { brand_id: brandId, user_id: userId, csrf_token: secret(), expires_at: new Date(Date.now() + SESSION_TTL_HOURS * 3_600_000) };
  await trx('dashboard_sessions').insert({
    ...session,
    session_hash: hashOf(sessionSecret),
    ip: client.ip?.slice(0, 100) ?? null,
    user_agent: client.userAgent?.slice(0, 300) ?? null,
    last_seen_at: trx.fn.now(),
  });
  if (userId !== null) await trx('merchant_users').where({ brand_id: brandId, user_id: userId }).update({ last_sign_in_at: trx.fn.now() });
  return { ...session, cookie: `${brandId}.${sessionSecret}` };
}

/** The live session a cookie names, or null (unknown, ended, expired or malformed). */
export async function findSession(db: Executor, cookie: string, isBrandId: (value: string) => boolean): Promise<(Omit<DashboardSession, 'cookie'> & { session_hash: string }) | null> {
  const [brandId, sessionSecret] = cookie.split('.');
  if (!brandId || !sessionSecret || !isBrandId(brandId)) return null;
  const row = await db('dashboard_sessions')
    .where({ brand_id: brandId, session_hash: hashOf(sessionSecret) })
    .whereNull('ended_at')
    .where('expires_at', '>', db.fn.now())
    .first('brand_id', 'user_id', 'csrf_token', 'expires_at', 'session_hash');
  if (!row) return null;
  return { brand_id: row.brand_id, user_id: row.user_id === null ? null : Number(row.user_id), csrf_token: row.csrf_token, expires_at: new Date(row.expires_at), session_hash: row.session_hash };
}

/** Ends the session a cookie names (logout); an unknown one is already ended. */
export async function endSession(db: Executor, cookie: string, isBrandId: (value: string) => boolean): Promise<void> {
  const [brandId, sessionSecret] = cookie.split('.');
  if (!brandId || !sessionSecret || !isBrandId(brandId)) return;
  await db('dashboard_sessions').where({ brand_id: brandId, session_hash: hashOf(sessionSecret) }).update({ ended_at: db.fn.now() });
}

/** Constant-time comparison of a form's CSRF token with its session's. */
export function sameToken(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
