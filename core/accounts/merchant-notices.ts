import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import type { Executor } from '../db/transaction';
import { checkedRecipient } from '../mail/mailbox';

/**
 * What tells a merchant that the program needs them (docs/merchants/merchant-accounts.md
 * "Notifications"): a daily digest to each owner and admin who keeps it on (the default), and an
 * email as soon as a fraud review waits, to those who turned it on. Both are account emails written
 * to the mail outbox, once each (their dedupe keys: a user and a day; a user and a review), so a
 * pass that runs twice, or two processes, write nothing twice.
 */
export const MERCHANT_NOTICES = ['merchant_digest', 'merchant_review_alert'] as const;
export type MerchantNotice = (typeof MERCHANT_NOTICES)[number];

/** The brand's figures a digest tells: what happened in its day, and what waits for the merchant now. */
export interface DigestFacts {
  new_advocates: number;
  referred_orders: number;
  rewards_on_hold: number;
  reviews_waiting: number;
  failed_webhook_deliveries: number;
  failed_emails: number;
  refused_reward_codes: number;
}

/** The facts of one brand for the day before `now`. */
export async function digestFacts(db: Executor, brandId: string, now: Date): Promise<DigestFacts> {
  const since = new Date(now.getTime() - 24 * 3600 * 1000);
  const { rows } = await db.raw(
    `SELECT
       (SELECT count(*) FROM advocates WHERE brand_id = :brand AND created_at >= :since AND created_at < :now) AS new_advocates,
       (SELECT count(*) FROM conversions WHERE brand_id = :brand AND type = 'referral' AND created_at >= :since AND created_at < :now) AS referred_orders,
       (SELECT count(*) FROM rewards WHERE brand_id = :brand AND status = 'pending') AS rewards_on_hold,
       (SELECT count(*) FROM referral_reviews WHERE brand_id = :brand AND status = 'open') AS reviews_waiting,
       (SELECT count(*) FROM webhook_deliveries WHERE brand_id = :brand AND status = 'failed' AND created_at >= :since) AS failed_webhook_deliveries,
       (SELECT count(*) FROM mail_messages WHERE brand_id = :brand AND status = 'failed' AND created_at >= :since AND template NOT LIKE 'merchant\\_%') AS failed_emails,
       (SELECT count(*) FROM reward_issues WHERE brand_id = :brand AND status = 'failed') AS refused_reward_codes`,
    { brand: brandId, since, now },
  );
  const row = rows[0] as Record<keyof DigestFacts, string>;
  return Object.fromEntries(Object.entries(row).map(([name, count]) => [name, Number(count)])) as unknown as DigestFacts;
}

/** Whether a digest has anything to say: a quiet day with nothing waiting sends none. */
export const digestWorthSending = (facts: DigestFacts) => Object.values(facts).some((count) => count > 0);

/** The people a notice goes to: the brand's owners and admins who keep `column` on. */
async function recipients(db: Executor, brandId: string, column: 'digest_email' | 'review_alert_email'): Promise<Array<{ user_id: string; email: string }>> {
  return db('merchant_users').where({ brand_id: brandId, [column]: true }).whereIn('role', ['owner', 'admin']).orderBy('user_id').select('user_id', 'email');
}

async function enqueueNotice(db: Executor, brandId: string, template: MerchantNotice, user: { user_id: string; email: string }, dedupeKey: string, data: object): Promise<number> {
  const inserted = await db('mail_messages')
    .insert({
      brand_id: brandId,
      template,
      dedupe_key: dedupeKey,
      recipient: checkedRecipient(user.email),
      recipient_normalized: normalizeEmail(user.email),
      data: JSON.stringify(data),
    })
    .onConflict(['brand_id', 'dedupe_key'])
    .ignore()
    .returning('message_id');
  return inserted.length;
}

/**
 * The day's digests (the UTC date of `now`): for each active brand with an owner or admin who keeps
 * the digest on, its facts once, and one email to each of them — none on a quiet day. Returns how many were written.
 */
export async function enqueueDigests(db: Knex, now: Date, options: { brandId?: string } = {}): Promise<number> {
  const day = now.toISOString().slice(0, 10);
  // Only brands with someone still to get today's digest: the pass runs every minute, and a brand's
  // figures are read once a day, not again each minute after its digests are written.
  const brands: Array<{ brand_id: string }> = await db('brands')
    .where({ status: 'active' })
    .whereExists(
      db('merchant_users as u')
        .whereRaw('u.brand_id = brands.brand_id')
        .where({ 'u.digest_email': true })
        .whereIn('u.role', ['owner', 'admin'])
        .whereNotExists(db('mail_messages as m').whereRaw('m.brand_id = u.brand_id').whereRaw("m.dedupe_key = 'merchant_digest:' || u.user_id || ':' || ?", [day])),
    )
    .modify((query) => {
      if (options.brandId) query.andWhere({ brand_id: options.brandId });
    })
    .select('brand_id');
  let written = 0;
  for (const { brand_id: brandId } of brands) {
    const facts = await digestFacts(db, brandId, now);
    if (!digestWorthSending(facts)) continue;
    for (const user of await recipients(db, brandId, 'digest_email')) written += await enqueueNotice(db, brandId, 'merchant_digest', user, `merchant_digest:${user.user_id}:${day}`, { facts, day });
  }
  return written;
}

/**
 * An email to each owner and admin who asked for it, for every fraud review opened in the last hour
 * and still open: once per review and person. Returns how many were written.
 */
export async function enqueueReviewAlerts(db: Knex, options: { brandId?: string } = {}): Promise<number> {
  const reviews: Array<{ brand_id: string; review_id: string; order_id: string | null }> = await db('referral_reviews as r')
    .join('conversions as c', function () {
      this.on('c.brand_id', '=', 'r.brand_id').andOn('c.conversion_id', '=', 'r.conversion_id');
    })
    .where('r.status', 'open')
    .where('r.created_at', '>=', db.raw("now() - interval '1 hour'"))
    .whereExists(db('merchant_users').whereRaw('merchant_users.brand_id = r.brand_id').where({ review_alert_email: true }))
    .modify((query) => {
      if (options.brandId) query.andWhere('r.brand_id', options.brandId);
    })
    .orderBy('r.review_id')
    .select('r.brand_id', 'r.review_id', 'c.order_id');
  let written = 0;
  for (const review of reviews) {
    for (const user of await recipients(db, review.brand_id, 'review_alert_email')) {
      written += await enqueueNotice(db, review.brand_id, 'merchant_review_alert', user, `merchant_review_alert:${review.review_id}:${user.user_id}`, { review_id: Number(review.review_id), order_id: review.order_id });
    }
  }
  return written;
}
