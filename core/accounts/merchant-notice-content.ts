import { counted } from '../counted';
import { escapeHtml } from '../mail/render-mail';
import type { DigestFacts, MerchantNotice } from './merchant-notices';

/** What a notice's stored data holds: the digest's facts and day, or the review's id and order. */
export interface MerchantNoticeData {
  facts?: DigestFacts;
  day?: string;
  review_id?: number;
  order_id?: string | null;
}

/** Each digest line: a count in words, and the dashboard page that shows it. */
const DIGEST_LINES: Array<[keyof DigestFacts, string, string, string]> = [
  ['new_advocates', 'new advocate joined', 'new advocates joined', '/dashboard/advocates'],
  ['referred_orders', 'referred order', 'referred orders', '/dashboard/activity'],
  ['reviews_waiting', 'order waits for your fraud review', 'orders wait for your fraud review', '/dashboard/reviews'],
  ['rewards_on_hold', 'reward is on hold (you may approve it early)', 'rewards are on hold (you may approve them early)', '/dashboard/advocates'],
  ['refused_reward_codes', 'reward code was refused by your store', 'reward codes were refused by your store', '/dashboard/payouts'],
  ['failed_webhook_deliveries', 'webhook delivery failed', 'webhook deliveries failed', '/dashboard/connections'],
  ['failed_emails', 'program email could not be sent', 'program emails could not be sent', '/dashboard/advocates'],
];

/**
 * A notice to a merchant, in the dashboard's language (English): the digest's lines (only those with
 * something to say), or the review waiting; each with the page to open, and how to turn it off.
 */
export function merchantNoticeContent(
  template: MerchantNotice,
  context: { brandName: string; dashboardUrl: string; data: MerchantNoticeData },
): { subject: string; text: string; html: string } {
  const accountUrl = `${context.dashboardUrl}/account`;
  let subject: string;
  let lines: Array<{ words: string; url: string }>;
  if (template === 'merchant_digest') {
    const facts = context.data.facts!;
    lines = DIGEST_LINES.filter(([name]) => facts[name] > 0).map(([name, one, many, path]) => ({ words: counted(facts[name], one, many), url: `${context.dashboardUrl.replace(/\/dashboard$/, '')}${path}` }));
    subject = `${context.brandName} referrals: ${lines.slice(0, 2).map((line) => line.words.replace(/ \(.*\)$/, '')).join(', ')}${lines.length > 2 ? '…' : ''}`;
  } else {
    const order = context.data.order_id ? `Order ${context.data.order_id}` : 'A referred order';
    subject = `${context.brandName} referrals: an order waits for your review`;
    lines = [{ words: `${order} was held for a fraud review: approve it or reject it.`, url: `${context.dashboardUrl}/reviews` }];
  }
  const lead = template === 'merchant_digest' ? `Your ${context.brandName} referral program in the last day:` : `Your ${context.brandName} referral program needs you:`;
  const off = `You get this email as an owner or admin. Turn it off in your account: ${accountUrl}`;
  const text = [lead, lines.map((line) => `- ${line.words}: ${line.url}`).join('\n'), off].join('\n\n') + '\n';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:32px 16px;background:#f4f4f5;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2937;font-size:16px;line-height:1.55">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:28px 32px">
<p style="margin:0 0 16px">${escapeHtml(lead)}</p>
<ul style="margin:0 0 16px;padding-left:20px">${lines.map((line) => `<li><a href="${escapeHtml(line.url)}">${escapeHtml(line.words)}</a></li>`).join('')}</ul>
<p style="margin:0;color:#6b7280;font-size:14px">You get this email as an owner or admin. <a href="${escapeHtml(accountUrl)}">Turn it off in your account</a>.</p>
</div></body></html>
`;
  return { subject, text, html };
}
