import { normalizeEmail } from '../advocates/normalize';
import { encryptSecret } from '../brands/key-encryption';
import type { Executor } from '../db/transaction';
import { checkedRecipient } from '../mail/mailbox';
import type { MerchantNoticeData } from './merchant-notice-content';

/**
 * The emails a merchant's own account gets (docs/merchants/merchant-accounts.md): a sign-in link and an
 * invitation. They go through the program emails' outbox and worker, but no brand switch or
 * program unsubscribe stops them (a person asked for them), and the link in them is stored
 * encrypted (it opens a session until it is used or expires).
 */
export const ACCOUNT_MAILS = ['merchant_sign_in', 'merchant_invitation', 'merchant_digest', 'merchant_review_alert'] as const;
export type AccountMail = (typeof ACCOUNT_MAILS)[number];

export const isAccountMail = (template: string): template is AccountMail => (ACCOUNT_MAILS as readonly string[]).includes(template);

export interface AccountMailData extends MerchantNoticeData {
  /** A sign-in link or invitation's link, sealed with the service's secret (key-encryption.ts). */
  link_sealed?: string;
  /** merchant_invitation: who invited them, and as what. */
  invited_by?: string;
  role?: string;
}

export async function enqueueAccountMail(
  db: Executor,
  mail: { brandId: string; template: AccountMail; to: string; dedupeKey: string; link: string; secret: string; invitedBy?: string; role?: string },
): Promise<void> {
  const data: AccountMailData = { link_sealed: encryptSecret(mail.link, mail.secret), invited_by: mail.invitedBy, role: mail.role };
  await db('mail_messages')
    .insert({
      brand_id: mail.brandId,
      template: mail.template,
      dedupe_key: mail.dedupeKey,
      recipient: checkedRecipient(mail.to),
      recipient_normalized: normalizeEmail(mail.to),
      data: JSON.stringify(data),
    })
    .onConflict(['brand_id', 'dedupe_key'])
    .ignore();
}
