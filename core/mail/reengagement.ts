import type { Knex } from 'knex';
import { notSuppressed } from './suppressions';

/**
 * The re-engagement job (docs/merchants/program-emails.md): for each brand that switched it on, every
 * active advocate who joined more than `reengagement_days` ago and referred nobody (no conversion, no
 * claim) in that many days gets one `reengagement` email per such period. The key names the period,
 * so any number of processes may run it at once and each advocate is written to once a period.
 * Returns how many messages it wrote.
 */
export async function queueReengagement(db: Knex): Promise<number> {
  const { rowCount } = await db.raw(
    `INSERT INTO mail_messages (brand_id, template, dedupe_key, advocate_id, recipient, recipient_normalized, data)
     SELECT a.brand_id, 'reengagement',
            'reengagement:' || a.advocate_id || ':' || floor(extract(epoch FROM now()) / (b.reengagement_days * 86400))::bigint,
            a.advocate_id, a.email, a.email_normalized, '{}'::json
       FROM brands b
       JOIN advocates a ON a.brand_id = b.brand_id
      WHERE b.status = 'active' AND b.email_reengagement AND a.status = 'active'
        AND a.created_at <= now() - b.reengagement_days * interval '1 day'
        AND NOT EXISTS (SELECT 1 FROM conversions c WHERE c.brand_id = a.brand_id AND c.advocate_id = a.advocate_id AND c.created_at > now() - b.reengagement_days * interval '1 day')
        AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.brand_id = a.brand_id AND c.advocate_id = a.advocate_id AND c.created_at > now() - b.reengagement_days * interval '1 day')
        AND NOT EXISTS (
          SELECT 1 FROM mail_messages m WHERE m.brand_id = a.brand_id AND m.advocate_id = a.advocate_id AND m.template = 'reengagement'
             AND m.created_at > now() - b.reengagement_days * interval '1 day'
        )
        AND ${notSuppressed('a.brand_id', 'a.email_normalized')}
     ON CONFLICT (brand_id, dedupe_key) DO NOTHING`,
  );
  return rowCount ?? 0;
}
