import fs from 'node:fs';
import { ZodError } from 'zod';
import { getBrand } from '../../core/brands/brand';
import { MAIL_STATUSES, listMailMessages, retryMailMessage } from '../../core/mail/mail-messages';
import { MAIL_TEMPLATES, type MailTemplate } from '../../core/mail/mail-templates';
import { messageContent, sampleMessage } from '../../core/mail/message-content';
import { inTransaction } from '../../core/db/transaction';
import { changeTemplate, getTemplate, resetTemplate } from '../../core/mail/template-texts';
import { unsubscribeUrl } from '../mail/deliver-mail';
import { describeZodError } from '../schemas/describe-zod-error';
import { templateTextSchema } from '../schemas/mail-request';
import { type Flags, brandFlag, choiceFlag, numberFlag, optionalFlag } from './args';
import { publicUrlOf } from '../config';
import { CliError } from './cli-error';
import { type Command, TextOutput, flagsFirst } from './command';
import { CLI_OPERATOR } from './user-commands';

function templateFlag(flags: Flags): MailTemplate {
  const template = choiceFlag(flags, 'template', MAIL_TEMPLATES);
  if (!template) throw new CliError(`--template is required (one of ${MAIL_TEMPLATES.join(', ')})`);
  return template;
}

/** --subject and --body (or --body-file), checked like the API's body; a body file is read when the command runs. */
function templateTextFlags(flags: Flags) {
  const subject = optionalFlag(flags, 'subject');
  const body = optionalFlag(flags, 'body');
  const bodyFile = optionalFlag(flags, 'body-file');
  if (body !== undefined && bodyFile !== undefined) throw new CliError('pass --body or --body-file, not both');
  if (flags.reset && (subject !== undefined || body !== undefined || bodyFile !== undefined)) throw new CliError('--reset takes no --subject or --body');
  return { subject, body, bodyFile };
}

function checkedText(text: { subject: string; body: string }) {
  try {
    return templateTextSchema.parse(text);
  } catch (error) {
    if (error instanceof ZodError) throw new CliError(`--${describeZodError(error)}`);
    throw error;
  }
}

/** `referrals mail …`: a brand's program emails (docs/merchants/program-emails.md). */
export const mailCommands: Record<string, Command> = {
  'mail list': flagsFirst(
    `mail list --brand ID [--status ${MAIL_STATUSES.join('|')}] [--limit N] [--json]`,
    (flags) => {
      const limit = numberFlag(flags, 'limit', { integer: true }) ?? 50;
      if (limit < 1 || limit > 500) throw new CliError('--limit must be from 1 to 500');
      return { brandId: brandFlag(flags), status: choiceFlag(flags, 'status', MAIL_STATUSES), limit };
    },
    async ({ brandId, status, limit }, { db }) => {
      await getBrand(db, brandId);
      return { messages: await listMailMessages(db, brandId, { status, limit, withAccountMail: true }) };
    },
  ),
  'mail preview': flagsFirst(
    'mail preview --brand ID --template T [--part text|html] [--json]',
    (flags) => ({ brandId: brandFlag(flags), template: templateFlag(flags), part: choiceFlag(flags, 'part', ['text', 'html'] as const) }),
    async ({ brandId, template, part }, { db, config }) => {
      const brand = await getBrand(db, brandId);
      const text = await getTemplate(db, brand, template);
      const sample = sampleMessage(brand, template);
      const unsubscribe = unsubscribeUrl({ publicUrl: publicUrlOf(config), secret: config.keyEncryptionSecret }, brandId, 'alex@example.com');
      const content = messageContent(brand, { template, data: sample.data }, text.custom ? text : undefined, sample.advocate, unsubscribe);
      if (part) return new TextOutput(content[part]);
      return { template, enabled: text.enabled, language: brand.language, custom: text.custom, ...content };
    },
  ),
  'mail template': flagsFirst(
    'mail template --brand ID --template T [--subject S] [--body B | --body-file FILE] [--reset] [--by NAME] [--json]',
    (flags) => ({ brandId: brandFlag(flags), template: templateFlag(flags), reset: flags.reset === true, by: optionalFlag(flags, 'by'), ...templateTextFlags(flags) }),
    async ({ brandId, template, reset, by, subject, body, bodyFile }, { db }) => {
      const brand = await getBrand(db, brandId);
      // Who the template's record and the audit log name: the operator, or whom --by names, from the CLI.
      const actor = by === undefined ? CLI_OPERATOR.name : `${by} (CLI)`;
      if (reset) return { template: await inTransaction(db, (trx) => resetTemplate(trx, brand, template, actor)) };
      if (subject === undefined && body === undefined && bodyFile === undefined) return { template: await getTemplate(db, brand, template) };
      const current = await getTemplate(db, brand, template);
      const text = checkedText({ subject: subject ?? current.subject, body: bodyFile !== undefined ? fs.readFileSync(bodyFile, 'utf8') : (body ?? current.body) });
      return { template: await inTransaction(db, (trx) => changeTemplate(trx, brand, template, text, actor)) };
    },
  ),
  'mail retry': flagsFirst(
    'mail retry --brand ID --message MESSAGE_ID [--json]',
    (flags) => {
      const messageId = numberFlag(flags, 'message', { integer: true });
      if (!messageId) throw new CliError('--message is required (a message id, from `mail list`)');
      return { brandId: brandFlag(flags), messageId };
    },
    async ({ brandId, messageId }, { db }) => ({ message: await inTransaction(db, (trx) => retryMailMessage(trx, brandId, messageId, CLI_OPERATOR.name)) }),
  ),
};
