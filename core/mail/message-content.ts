import type { Knex } from 'knex';
import type { Brand } from '../brands/brand';
import { defaultTemplate } from './default-templates';
import type { MailTemplate, TemplateText } from './mail-templates';
import { type MailAdvocate, type MailData, mailValues } from './mail-values';
import { type RenderedMail, renderMail } from './render-mail';

/** What a message says: the brand's words (or the default in its language) with the message's facts put in. */
export function messageContent(
  brand: Brand,
  message: { template: MailTemplate; data: MailData },
  custom: TemplateText | undefined,
  advocate: MailAdvocate | null,
  unsubscribeUrl: string,
): RenderedMail {
  return renderMail({
    template: message.template,
    text: custom ?? defaultTemplate(brand.language, message.template),
    values: mailValues(brand, message.data, advocate),
    brandName: brand.name,
    language: brand.language,
    unsubscribeUrl,
  });
}

/** A sample advocate and facts: what `mail preview` renders a template with. */
export function sampleMessage(brand: Brand, template: MailTemplate): { data: MailData; advocate: MailAdvocate } {
  const heldUntil = new Date(Date.now() + Math.max(brand.reward_hold_days, 1) * 86_400_000).toISOString();
  return {
    advocate: { first_name: 'Alex', code: 'ALEX7K2Q9' },
    data: {
      referral_code: 'ALEX7K2Q9',
      amount: template === 'reward_paid' ? '42.50' : '12.50',
      currency: brand.currency,
      held_until: heldUntil,
      // reward_reversed: a refunded order of last week that left the advocate owing.
      order_value: '125.00',
      order_currency: brand.currency,
      order_date: new Date(Date.now() - 7 * 86_400_000).toISOString(),
      owed: '2.50',
      // reward_issued: a code of a brand whose codes expire.
      reward_code: 'RWD-3F9A1C0B7E',
      ...(brand.reward_code_expiry_days ? { expires_at: new Date(Date.now() + brand.reward_code_expiry_days * 86_400_000).toISOString() } : {}),
    },
  };
}

/** The advocates several messages name (their recipient, or the friend's referrer), by `brand_id:advocate_id`, each with their first code. */
export async function advocatesOf(db: Knex, pairs: Array<{ brand_id: string; advocate_id: number }>): Promise<Map<string, MailAdvocate>> {
  if (pairs.length === 0) return new Map();
  const { rows } = await db.raw(
    `SELECT a.brand_id, a.advocate_id, a.first_name,
            (SELECT c.code FROM referral_codes c WHERE c.brand_id = a.brand_id AND c.advocate_id = a.advocate_id AND c.kind = 'referral'
              ORDER BY c.created_at LIMIT 1) AS code
       FROM advocates a
       JOIN (SELECT DISTINCT * FROM json_to_recordset(?::json) AS k(brand_id uuid, advocate_id bigint)) k ON a.brand_id = k.brand_id AND a.advocate_id = k.advocate_id`,
    [JSON.stringify(pairs)],
  );
  return new Map((rows as Array<{ brand_id: string; advocate_id: string; first_name: string; code: string | null }>).map((row) => [`${row.brand_id}:${row.advocate_id}`, { first_name: row.first_name, code: row.code }]));
}
