import { z } from 'zod';
import { inTransaction } from '../../core/db/transaction';
import { Invalid } from '../../core/errors';
import { type MailStatus, MAIL_STATUSES, listMailMessages, retryMailMessage } from '../../core/mail/mail-messages';
import { MAIL_TEMPLATES, type MailTemplate, type TemplateText } from '../../core/mail/mail-templates';
import { messageContent, sampleMessage } from '../../core/mail/message-content';
import { checkTemplateText } from '../../core/mail/render-mail';
import { liftSuppression, listSuppressions } from '../../core/mail/suppressions';
import { changeTemplate, getTemplate, listTemplates, resetTemplate } from '../../core/mail/template-texts';
import { queueTestMail } from '../../core/mail/test-mail';
import type { Ctx } from '../app-context';
import { publicUrlOf } from '../config';
import { HttpError } from '../http-error';
import { mailbox } from '../schemas/fields';
import { requireConfirmation } from './confirmation';
import { runForm, seeOther } from './form-actions';
import { doneOf } from './form-notice';
import { renderPage } from './render-page';

/**
 * The Emails page (docs/merchants/program-emails.md "In the dashboard"): every program email with its
 * words, a preview in the brand's language with sample facts, a test to the merchant's own address,
 * reset to the default; what was sent, with a retry of a failed one; the addresses that get none.
 * Each form is the same core call as the REST API's and the CLI's.
 */

const PAGE = '/dashboard/emails';

/** Each email as a merchant reads it: its name, and when it goes out. */
export const TEMPLATE_WORDS: Record<MailTemplate, { name: string; when: string }> = {
  advocate_welcome: { name: 'Welcome', when: 'when someone becomes an advocate: their code and share link' },
  advocate_link_again: { name: 'Your link again', when: 'when an address that already joined joins again on your store' },
  reward_earned: { name: 'Reward earned', when: "when a friend's order earns the advocate a reward (held until it is approved)" },
  reward_approved: { name: 'Reward approved', when: 'when a reward is approved: spendable' },
  reward_paid: { name: 'Reward paid', when: 'when you record a payout to the advocate' },
  reward_reversed: { name: 'Reward taken back', when: "when a refund of the friend's order takes back part of a reward" },
  reward_issued: { name: 'Reward code or store credit', when: 'when the advocate\u2019s reward is on your store as a code or store credit' },
  friend_offer: { name: "Friend's offer", when: 'to a friend who claimed the referral discount, if they have not ordered' },
  reengagement: { name: 'Reminder', when: 'to an advocate who has not shared for a while' },
};

/** A message's status as a merchant reads it. */
const STATUS_WORDS: Record<MailStatus, string> = { queued: 'waiting to be sent', sending: 'being sent', sent: 'sent', failed: 'failed', suppressed: 'not sent: the address gets no emails' };

const templateOf = (name: string): MailTemplate => {
  if (!(MAIL_TEMPLATES as readonly string[]).includes(name)) throw new HttpError(404, 'There is no such email.');
  return name as MailTemplate;
};

const logQuerySchema = z.object({
  status: z.enum(MAIL_STATUSES, { error: `status must be one of ${MAIL_STATUSES.join(', ')}` }).optional().catch(undefined),
  before: z.coerce.number().int().positive().optional().catch(undefined),
});

/** GET /dashboard/emails: the emails, the sent log (newest first, 50 a page), the addresses that get none. */
export async function emailsPage(ctx: Ctx, refusal?: { status: number; message: string }): Promise<void> {
  const { brand } = ctx.state.viewer!;
  const { db } = ctx.app.context.deps;
  const query = logQuerySchema.parse(ctx.query);
  const templates = (await listTemplates(db, brand)).map((view) => ({ ...view, ...TEMPLATE_WORDS[view.template] }));
  const log = (await listMailMessages(db, brand.brand_id, { status: query.status, before: query.before, limit: 50 })).map((message) => ({
    ...message,
    name: TEMPLATE_WORDS[message.template].name,
    status_words: STATUS_WORDS[message.status],
  }));
  const suppressions = await listSuppressions(db, brand.brand_id);
  const done = doneOf(ctx, ['retried', 'lifted', 'not_listed']);
  const notice = done === 'retried' ? 'The email is queued again: it goes out within a minute.' : done === 'lifted' ? 'That address gets the program\u2019s emails again.' : done === 'not_listed' ? 'That address was not on the list.' : null;
  renderPage(ctx, 'emails', { title: 'Emails', section: PAGE, templates, log, status: query.status ?? '', statuses: MAIL_STATUSES, statusWords: STATUS_WORDS, suppressions, notice, refusal: refusal?.message ?? null }, refusal?.status);
}

/** The page of one email: its words (as saved, or as typed), a preview with sample facts, the placeholders it may use. */
async function templatePage(ctx: Ctx, template: MailTemplate, typed?: TemplateText, refusal?: { status: number; field: string | null; message: string }): Promise<void> {
  const { brand } = ctx.state.viewer!;
  const saved = await getTemplate(ctx.app.context.deps.db, brand, template);
  const text = typed ?? { subject: saved.subject, body: saved.body };
  const sample = sampleMessage(brand, template);
  let preview = null;
  try {
    checkTemplateText(template, text);
    preview = messageContent(brand, { template, data: sample.data }, text, sample.advocate, `${publicUrlOf(ctx.app.context.deps.config)}/mail/unsubscribe/…`);
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
  }
  const done = doneOf(ctx, ['saved', 'reset', 'test_sent']);
  const notice = done === 'saved' ? 'Saved: the next emails use these words.' : done === 'reset' ? 'Back to the default words.' : done === 'test_sent' ? 'A test is on its way to your address.' : typed && !refusal ? 'Preview of what you typed: not saved yet.' : null;
  renderPage(
    ctx,
    'email-template',
    {
      title: `${TEMPLATE_WORDS[template].name} · Emails`,
      section: PAGE,
      template,
      words: TEMPLATE_WORDS[template],
      saved,
      text,
      preview,
      notice,
      refusal: refusal && !refusal.field ? refusal.message : null,
      fieldErrors: refusal?.field ? { [refusal.field]: refusal.message } : {},
      testTo: ctx.state.viewer!.user?.email ?? null,
    },
    refusal?.status,
  );
}

/** GET /dashboard/emails/:template */
export const emailTemplatePage = (ctx: Ctx, name: string) => templatePage(ctx, templateOf(name));

/** A refusal of the words in plain words, beside the field it names ("subject: …", "body: …"). */
function fieldRefusal(message: string): { field: string | null; message: string } {
  const field = /^(subject|body)\b/.exec(message)?.[1] ?? null;
  const words = field ? message.slice(field.length).replace(/^[\s:]+/, '') : message;
  return { field, message: `${field === 'subject' ? 'Subject' : field === 'body' ? 'Text' : ''}${field ? ': ' : ''}${words}` };
}

/** POST /dashboard/emails/:template: Preview (re-renders what was typed, saves nothing) or Save (the words, audited). */
export async function saveTemplateForm(ctx: Ctx, name: string, form: URLSearchParams): Promise<void> {
  const template = templateOf(name);
  const typed = { subject: form.get('subject') ?? '', body: (form.get('body') ?? '').replace(/\r\n/g, '\n') };
  await runForm(
    ctx,
    form,
    async () => {
      if (form.get('action') === 'preview') {
        checkTemplateText(template, typed);
        return templatePage(ctx, template, typed);
      }
      const viewer = ctx.state.viewer!;
      await inTransaction(ctx.app.context.deps.db, (trx) => changeTemplate(trx, viewer.brand, template, typed, viewer.actor));
      seeOther(ctx, `${PAGE}/${template}`, { done: 'saved' });
    },
    (status, message) => templatePage(ctx, template, typed, { status, ...fieldRefusal(message) }),
  );
}

/** POST /dashboard/emails/:template/reset: back to the default words, once the box is ticked. */
export async function resetTemplateForm(ctx: Ctx, name: string, form: URLSearchParams): Promise<void> {
  const template = templateOf(name);
  await runForm(
    ctx,
    form,
    async () => {
      requireConfirmation(form, 'Yes, go back to the default words');
      const viewer = ctx.state.viewer!;
      await inTransaction(ctx.app.context.deps.db, (trx) => resetTemplate(trx, viewer.brand, template, viewer.actor));
      seeOther(ctx, `${PAGE}/${template}`, { done: 'reset' });
    },
    (status, message) => templatePage(ctx, template, undefined, { status, field: null, message }),
  );
}

/** POST /dashboard/emails/:template/test: the saved words with sample facts, to the signed-in person's own address. */
export async function testTemplateForm(ctx: Ctx, name: string, form: URLSearchParams): Promise<void> {
  const template = templateOf(name);
  await runForm(
    ctx,
    form,
    async () => {
      const viewer = ctx.state.viewer!;
      if (!viewer.user) throw new Invalid('This session has no address of yours to send a test to: sign in with your own email address (ask an owner to invite you).');
      await inTransaction(ctx.app.context.deps.db, (trx) => queueTestMail(trx, viewer.brand, template, viewer.user!.email, viewer.actor));
      seeOther(ctx, `${PAGE}/${template}`, { done: 'test_sent' });
    },
    (status, message) => templatePage(ctx, template, undefined, { status, field: null, message }),
  );
}

/** POST /dashboard/emails/log/:id/retry: a failed email queued again (audited). */
export async function retryEmailForm(ctx: Ctx, id: string, form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      if (!/^[1-9]\d{0,15}$/.test(id)) throw new HttpError(404, 'There is no such email.');
      const viewer = ctx.state.viewer!;
      await inTransaction(ctx.app.context.deps.db, (trx) => retryMailMessage(trx, viewer.brand.brand_id, Number(id), viewer.actor));
      seeOther(ctx, PAGE, { done: 'retried' });
    },
    (status, message) => emailsPage(ctx, { status, message }),
  );
}

/** POST /dashboard/emails/suppressions/remove: the address gets emails again, at its owner's request, once the box is ticked. */
export async function liftSuppressionForm(ctx: Ctx, form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      const email = z.object({ email: mailbox() }).parse({ email: form.get('email') ?? '' }).email;
      requireConfirmation(form, 'Yes, the advocate asked to get emails again');
      const viewer = ctx.state.viewer!;
      const lifted = await inTransaction(ctx.app.context.deps.db, (trx) => liftSuppression(trx, viewer.brand.brand_id, email, viewer.actor));
      seeOther(ctx, PAGE, { done: lifted ? 'lifted' : 'not_listed' });
    },
    (status, message) => emailsPage(ctx, { status, message }),
  );
}
