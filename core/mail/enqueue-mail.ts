import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import type { Executor } from '../db/transaction';
import { MAIL_TEMPLATES, type MailTemplate, TEMPLATE_SWITCH } from './mail-templates';
import { checkedRecipient } from './mailbox';
import { notSuppressed } from './suppressions';
import type { MailData } from './mail-values';

/** A program email a change causes: written with the change (an outbox), sent later by the mail worker. */
export interface MailIntent {
  brandId: string;
  template: MailTemplate;
  /** What caused it (`reward_earned:<reward_id>`...): one message per cause, however often the cause is reported. */
  dedupeKey: string;
  /** The advocate it goes to (at their email)... */
  advocateId?: number;
  /** ...or an address of its own (a referred friend), already checked by the caller (and refused here if it is not one address). */
  to?: string;
  data?: MailData;
}

/** The brand's switch (brands row `b`) of the template in SQL column `template`: a template switched off writes nothing. */
const switchedOn = (template: string) =>
  `CASE ${template} ${MAIL_TEMPLATES.map((name) => `WHEN '${name}' THEN b.${TEMPLATE_SWITCH[name]}`).join(' ')} ELSE false END`;

// One statement for a batch's messages, of any brands: the brand's switch and the advocate's
// address are read here, and an address that unsubscribed or bounced gets nothing (no row).
const ENQUEUE_SQL = `
INSERT INTO mail_messages (brand_id, template, dedupe_key, advocate_id, recipient, recipient_normalized, data)
SELECT i.brand_id, i.template, i.dedupe_key, i.advocate_id, coalesce(i.recipient, a.email), coalesce(i.recipient_normalized, a.email_normalized), i.data
  FROM json_to_recordset(?::json) AS i(brand_id uuid, template text, dedupe_key text, advocate_id bigint, recipient text, recipient_normalized text, data json)
  JOIN brands b ON b.brand_id = i.brand_id
  LEFT JOIN advocates a ON i.recipient IS NULL AND a.brand_id = i.brand_id AND a.advocate_id = i.advocate_id
 WHERE ${switchedOn('i.template')}
   AND coalesce(i.recipient_normalized, a.email_normalized) IS NOT NULL
   AND ${notSuppressed('i.brand_id', 'coalesce(i.recipient_normalized, a.email_normalized)')}
ON CONFLICT (brand_id, dedupe_key) DO NOTHING`;

/**
 * The advocates' emails of rewards written in the same statement: the body of a CTE over CTE
 * `source` (what insertNewRewards returns), writing `reward_earned` for a held reward and
 * `reward_approved` for one approved at once, under the same keys as rewardMail
 * (program-mail.ts), where the brand has them on and the address is not suppressed. A batch of
 * paid orders writes its emails with its conversions, in no statement of its own.
 */
export function queueRewardMail(db: Executor, source: string): Knex.Raw {
  return db.raw(
    `INSERT INTO mail_messages (brand_id, template, dedupe_key, advocate_id, recipient, recipient_normalized, data)
     SELECT r.brand_id, t.template, t.template || ':' || r.conversion_id, r.advocate_id, a.email, a.email_normalized,
            CASE t.template WHEN 'reward_earned' THEN json_build_object('amount', r.amount::text, 'held_until', r.hold_until)
                            ELSE json_build_object('amount', r.amount::text) END
       FROM ?? r
       CROSS JOIN LATERAL (SELECT CASE r.status WHEN 'pending' THEN 'reward_earned' WHEN 'approved' THEN 'reward_approved' END AS template) t
       JOIN brands b ON b.brand_id = r.brand_id
       JOIN advocates a ON a.brand_id = r.brand_id AND a.advocate_id = r.advocate_id
      WHERE ${switchedOn('t.template')}
        AND ${notSuppressed('r.brand_id', 'a.email_normalized')}
     ON CONFLICT (brand_id, dedupe_key) DO NOTHING`,
    [source],
  );
}

/**
 * Writes the program emails a change causes, in the change's transaction: they commit or roll back
 * with it, and nothing is sent from the request.
 */
export async function enqueueMail(trx: Executor, intents: MailIntent[]): Promise<void> {
  const rows = intents.map((intent) => ({
    brand_id: intent.brandId,
    template: intent.template,
    dedupe_key: intent.dedupeKey,
    advocate_id: intent.advocateId ?? null,
    recipient: intent.to === undefined ? null : checkedRecipient(intent.to),
    recipient_normalized: intent.to === undefined ? null : normalizeEmail(intent.to),
    data: intent.data ?? {},
  }));
  if (rows.length > 0) await trx.raw(ENQUEUE_SQL, [JSON.stringify(rows)]);
}
