import { normalizeEmail } from '../advocates/normalize';
import { recordAudit } from '../audit/audit-log';
import type { Brand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import { Conflict } from '../errors';
import { checkedRecipient } from './mailbox';
import type { MailTemplate } from './mail-templates';
import { sampleMessage } from './message-content';

/**
 * "Send a test to me" (the dashboard's Emails page): one of the brand's templates, in its words now,
 * with the sample advocate and facts of its preview, to the merchant's own address — through the
 * mail outbox like any email, its subject marked as a test. At most one a minute per template and
 * address (a second click is a 409 saying so). Audited.
 */
export async function queueTestMail(db: Executor, brand: Brand, template: MailTemplate, to: string, actor: string): Promise<void> {
  const sample = sampleMessage(brand, template);
  const minute = new Date().toISOString().slice(0, 16);
  const inserted = await db('mail_messages')
    .insert({
      brand_id: brand.brand_id,
      template,
      dedupe_key: `test:${template}:${normalizeEmail(to)}:${minute}`,
      recipient: checkedRecipient(to),
      recipient_normalized: normalizeEmail(to),
      data: JSON.stringify({ ...sample.data, test: true, sample_advocate: sample.advocate }),
    })
    .onConflict(['brand_id', 'dedupe_key'])
    .ignore()
    .returning('message_id');
  if (inserted.length === 0) throw new Conflict('a test of this email went to you less than a minute ago: look in your inbox');
  await recordAudit(db, { brandId: brand.brand_id, actor, action: 'email_template.test', subject: `email_template:${template}`, after: { to } });
}
