import type { Language } from '../brands/brand';
import { Invalid } from '../errors';
import { mailPhrases } from './default-templates';
import { type MailTemplate, PLACEHOLDERS, type TemplateText } from './mail-templates';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/**
 * Refuses a template a merchant wrote that names a placeholder the template does not have (or
 * leaves one unclosed), naming it and the field: checked when saved, so a send never meets it.
 */
export function checkTemplateText(template: MailTemplate, text: TemplateText): void {
  const allowed = PLACEHOLDERS[template];
  for (const field of ['subject', 'body'] as const) {
    const value = text[field];
    if (value.trim() === '') throw new Invalid(`${field} must not be empty`);
    for (const [, name] of value.matchAll(PLACEHOLDER)) {
      if (!allowed.includes(name!)) throw new Invalid(`${field}: unknown placeholder {{${name}}} in ${template}; it may use ${allowed.map((p) => `{{${p}}}`).join(', ')}`);
    }
    const rest = value.replace(PLACEHOLDER, '');
    if (rest.includes('{{') || rest.includes('}}')) throw new Invalid(`${field}: a placeholder is not closed (write it as {{name}})`);
  }
  if (text.subject.length > 300) throw new Invalid('subject must be at most 300 characters');
  if (text.body.length > 10_000) throw new Invalid('body must be at most 10,000 characters');
}

export interface RenderInput {
  template: MailTemplate;
  text: TemplateText;
  /** Every placeholder's value, as plain text ('' when not known: a paragraph left empty is dropped). */
  values: Record<string, string>;
  brandName: string;
  language: Language;
  unsubscribeUrl: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const fill = (text: string, values: Record<string, string>) => text.replace(PLACEHOLDER, (_, name: string) => values[name] ?? '');

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
}

/**
 * The placeholders whose values are addresses the program built (the share link from the brand's
 * checked https store address): the only links in an email. A merchant's text and every other
 * value (a first name that is a URL) are words, so nobody but the program puts a link in its mail.
 */
const LINK_PLACEHOLDERS: readonly string[] = ['share_link', 'store_url'];

const isWebAddress = (value: string) => URL.canParse(value) && ['https:', 'http:'].includes(new URL(value).protocol);
const linkTo = (url: string) => `<a href="${escapeHtml(url)}" style="color:#1d4ed8">${escapeHtml(url)}</a>`;

/** A template's text as HTML: its own words and the values escaped, a link placeholder's address a link. */
const fillHtml = (text: string, values: Record<string, string>) =>
  // split on a pattern with one group: the text between placeholders at even places, their names at odd ones
  text
    .split(PLACEHOLDER)
    .map((part, index) => {
      if (index % 2 === 0) return escapeHtml(part);
      const value = values[part] ?? '';
      return LINK_PLACEHOLDERS.includes(part) && isWebAddress(value) ? linkTo(value) : escapeHtml(value);
    })
    .join('');

const paragraphsOf = (body: string) => body.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/).map((paragraph) => paragraph.trim());
const SHARE_LINK_ONLY = /^\{\{\s*share_link\s*\}\}$/;

/** One paragraph of the HTML part: a paragraph that is only the share link becomes a button. */
function htmlParagraph(paragraph: string, values: Record<string, string>, button: string): string {
  if (SHARE_LINK_ONLY.test(paragraph)) {
    const link = values.share_link ?? '';
    if (!isWebAddress(link)) return '';
    return (
      `<p style="margin:24px 0"><a href="${escapeHtml(link)}" style="display:inline-block;background:#111827;color:#ffffff;text-decoration:none;` +
      `padding:12px 20px;border-radius:6px;font-weight:600">${escapeHtml(button)}</a></p>` +
      `<p style="margin:0 0 16px;font-size:13px;color:#6b7280;word-break:break-all">${linkTo(link)}</p>`
    );
  }
  const filled = fillHtml(paragraph, values).trim();
  return filled ? `<p style="margin:0 0 16px">${filled.replace(/\n/g, '<br>')}</p>` : '';
}

/**
 * A program email's subject, plain-text and HTML parts: the template's words with the values put
 * in (all of it text in the HTML part: a merchant's `<script>` and an advocate named `<script>`
 * are shown, not run), a footer naming the program and the unsubscribe link.
 */
export function renderMail(input: RenderInput): RenderedMail {
  const { text, values } = input;
  const phrases = mailPhrases(input.language);
  const subject = fill(text.subject, values).replace(/\s+/g, ' ').trim();
  const footer = phrases.footer.replace('{brand}', input.brandName);
  const paragraphs = paragraphsOf(text.body);
  const plain = paragraphs.map((paragraph) => fill(paragraph, values).trim()).filter(Boolean);
  const button = input.template === 'friend_offer' ? phrases.offerButton : phrases.shareButton;
  const html = paragraphs.map((paragraph) => htmlParagraph(paragraph, values, button)).filter(Boolean);
  return {
    subject,
    text: `${plain.join('\n\n')}\n\n--\n${footer}\n${phrases.unsubscribe}: ${input.unsubscribeUrl}\n`,
    html: `<!doctype html>
<html lang="${input.language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f5"><tr><td align="center" style="padding:32px 16px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2937">
<tr><td style="padding:20px 32px;border-bottom:1px solid #e5e7eb;font-size:18px;font-weight:700">${escapeHtml(input.brandName)}</td></tr>
<tr><td style="padding:28px 32px 12px;font-size:16px;line-height:1.55">
${html.join('\n')}
</td></tr>
</table>
<p style="max-width:560px;margin:16px auto 0;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:12px;line-height:1.5;color:#6b7280">${escapeHtml(footer)} <a href="${escapeHtml(input.unsubscribeUrl)}" style="color:#6b7280">${escapeHtml(phrases.unsubscribe)}</a></p>
</td></tr></table>
</body>
</html>
`,
  };
}
