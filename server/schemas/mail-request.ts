import { z } from 'zod';
import { NotFound } from '../../core/errors';
import { MAIL_STATUSES } from '../../core/mail/mail-messages';
import { MAIL_TEMPLATES, type MailTemplate, type TemplateText } from '../../core/mail/mail-templates';

/** GET /api/v1/emails query. */
export const mailListQuerySchema = z.object({
  status: z.enum(MAIL_STATUSES, { error: `must be one of ${MAIL_STATUSES.join(', ')}` }).optional(),
  limit: z.coerce.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).min(1).max(500).optional(),
  before: z.coerce.number({ error: 'must be a message id' }).int({ error: 'must be a message id' }).positive().optional(),
});

/** PUT /api/v1/email-templates/{template}: the brand's own words (placeholders are checked by core, naming an unknown one). */
export const templateTextSchema = z.object({
  subject: z.string().trim().min(1, { error: 'must not be empty' }).max(300, { error: 'must be at most 300 characters' }),
  body: z.string().trim().min(1, { error: 'must not be empty' }).max(10_000, { error: 'must be at most 10,000 characters' }),
});

export function parseTemplateText(body: Record<string, unknown>): TemplateText {
  return templateTextSchema.parse(body);
}

/** PATCH /api/v1/email-templates/{template}: switch it on or off, and/or change its words. */
export const templatePatchSchema = templateTextSchema
  .partial()
  .extend({ enabled: z.boolean({ error: 'must be true or false' }).optional() })
  .refine((patch) => Object.values(patch).some((value) => value !== undefined), { error: 'name at least one of enabled, subject, body' });

export function parseTemplatePatch(body: Record<string, unknown>): z.infer<typeof templatePatchSchema> {
  return templatePatchSchema.parse(body);
}

/** A template named in a path or a flag; an unknown one is not found. */
export function parseTemplateName(raw: string): MailTemplate {
  if (!(MAIL_TEMPLATES as readonly string[]).includes(raw)) throw new NotFound(`email template ${raw} not found; templates are ${MAIL_TEMPLATES.join(', ')}`);
  return raw as MailTemplate;
}
