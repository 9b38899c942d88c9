import { INVITATION_LINK_TTL_MINUTES, LOGIN_LINK_TTL_MINUTES } from '../dashboard/dashboard-sign-in';
import { escapeHtml } from '../mail/render-mail';
import type { AccountMail } from './account-mail';

/**
 * A merchant's account email, in the dashboard's language (English): the link as a button and as
 * text, how long it works, and where to ask for another. No unsubscribe: the person asked for it
 * (sign-in) or was added by their team (invitation).
 */
export function accountMailContent(
  template: AccountMail,
  facts: { brandName: string; link: string; signInPage: string; invitedBy?: string; role?: string },
): { subject: string; text: string; html: string } {
  const invitation = template === 'merchant_invitation';
  const subject = invitation ? `You are invited to the ${facts.brandName} referral program dashboard` : `Sign in to the ${facts.brandName} referral dashboard`;
  const lead = invitation
    ? `${facts.invitedBy ?? 'Your team'} added you to the ${facts.brandName} referral program dashboard as ${facts.role === 'admin' || facts.role === 'owner' ? 'an' : 'a'} ${facts.role ?? 'user'}.`
    : `Here is your link to sign in to the ${facts.brandName} referral dashboard.`;
  const expiry = invitation
    ? `The link works once, for ${INVITATION_LINK_TTL_MINUTES / 1440} days. After that, or to sign in again, ask for a link at ${facts.signInPage} with this address.`
    : `The link works once, for ${LOGIN_LINK_TTL_MINUTES} minutes. Later, ask for a new one at ${facts.signInPage} with this address.`;
  const ignore = invitation ? '' : 'If you did not ask to sign in, ignore this email: nothing happens without the link.';
  const text = [lead, `Sign in: ${facts.link}`, expiry, ignore].filter(Boolean).join('\n\n') + '\n';
  const paragraph = (words: string) => `<p style="margin:0 0 16px">${escapeHtml(words)}</p>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:32px 16px;background:#f4f4f5;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2937;font-size:16px;line-height:1.55">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:28px 32px">
${paragraph(lead)}
<p style="margin:24px 0"><a href="${escapeHtml(facts.link)}" style="display:inline-block;background:#111827;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">Sign in</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#6b7280;word-break:break-all">${escapeHtml(facts.link)}</p>
${paragraph(expiry)}${ignore ? paragraph(ignore) : ''}
</div>
</body></html>
`;
  return { subject, text, html };
}
