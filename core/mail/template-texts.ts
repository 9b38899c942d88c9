import type { Knex } from 'knex';
import { type Brand, updateBrand } from '../brands/brand';
import type { Executor } from '../db/transaction';
import { defaultTemplate } from './default-templates';
import { MAIL_TEMPLATES, type MailTemplate, PLACEHOLDERS, TEMPLATE_SWITCH, type TemplateText, templateOn } from './mail-templates';
import { checkTemplateText } from './render-mail';

/** A template as a brand sends it: its own words when it wrote some, else the default in its language. */
export interface TemplateView extends TemplateText {
  template: MailTemplate;
  enabled: boolean;
  /** The brand's own words (false: the default in the brand's language). */
  custom: boolean;
  placeholders: readonly string[];
  updated_by: string | null;
  updated_at: string | null;
}

interface OverrideRow {
  brand_id: string;
  template: MailTemplate;
  subject: string;
  body: string;
  updated_by: string;
  updated_at: Date;
}

function toView(brand: Brand, template: MailTemplate, row: OverrideRow | undefined): TemplateView {
  const text = row ?? defaultTemplate(brand.language, template);
  return {
    template,
    enabled: templateOn(brand, template),
    custom: row !== undefined,
    subject: text.subject,
    body: text.body,
    placeholders: PLACEHOLDERS[template],
    updated_by: row?.updated_by ?? null,
    updated_at: row ? new Date(row.updated_at).toISOString() : null,
  };
}

export async function listTemplates(db: Executor, brand: Brand): Promise<TemplateView[]> {
  const rows: OverrideRow[] = await db('mail_templates').where({ brand_id: brand.brand_id });
  return MAIL_TEMPLATES.map((template) => toView(brand, template, rows.find((row) => row.template === template)));
}

export async function getTemplate(db: Executor, brand: Brand, template: MailTemplate): Promise<TemplateView> {
  const row: OverrideRow | undefined = await db('mail_templates').where({ brand_id: brand.brand_id, template }).first();
  return toView(brand, template, row);
}

/** The brand's own words for a template; a placeholder the template does not have is refused, naming it. */
export async function saveTemplate(db: Executor, brand: Brand, template: MailTemplate, text: TemplateText, updatedBy: string): Promise<TemplateView> {
  checkTemplateText(template, text);
  await db('mail_templates')
    .insert({ brand_id: brand.brand_id, template, subject: text.subject, body: text.body, updated_by: updatedBy })
    .onConflict(['brand_id', 'template'])
    .merge({ subject: text.subject, body: text.body, updated_by: updatedBy, updated_at: db.fn.now() });
  return getTemplate(db, brand, template);
}

/**
 * A merchant's change to one template: switched on or off (the brand's setting), and/or new words
 * (a subject or body alone keeps the other as it is now). Returns the template as it is after.
 */
export async function changeTemplate(
  trx: Knex.Transaction,
  brand: Brand,
  template: MailTemplate,
  change: { enabled?: boolean; subject?: string; body?: string },
  updatedBy: string,
): Promise<TemplateView> {
  const current = await getTemplate(trx, brand, template);
  const after = change.enabled === undefined || change.enabled === current.enabled ? brand : await updateBrand(trx, brand.brand_id, { [TEMPLATE_SWITCH[template]]: change.enabled });
  if (change.subject === undefined && change.body === undefined) return getTemplate(trx, after, template);
  return saveTemplate(trx, after, template, { subject: change.subject ?? current.subject, body: change.body ?? current.body }, updatedBy);
}

/** Back to the default words in the brand's language. */
export async function resetTemplate(db: Executor, brand: Brand, template: MailTemplate): Promise<TemplateView> {
  await db('mail_templates').where({ brand_id: brand.brand_id, template }).delete();
  return getTemplate(db, brand, template);
}

/** The words of several brands' templates at once (a worker's pass), by `brand_id:template`; absent: the default. */
export async function customTexts(db: Knex, pairs: Array<{ brand_id: string; template: MailTemplate }>): Promise<Map<string, TemplateText>> {
  if (pairs.length === 0) return new Map();
  const { rows } = await db.raw(
    `SELECT t.brand_id, t.template, t.subject, t.body FROM mail_templates t
       JOIN (SELECT DISTINCT * FROM json_to_recordset(?::json) AS k(brand_id uuid, template text)) k ON t.brand_id = k.brand_id AND t.template = k.template`,
    [JSON.stringify(pairs)],
  );
  return new Map((rows as OverrideRow[]).map((row) => [`${row.brand_id}:${row.template}`, { subject: row.subject, body: row.body }]));
}
