import type { Knex } from 'knex';
import { changedFields, recordAudit } from '../audit/audit-log';
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
async function saveText(trx: Knex.Transaction, brandId: string, template: MailTemplate, text: TemplateText, updatedBy: string): Promise<void> {
  checkTemplateText(template, text);
  await trx('mail_templates')
    .insert({ brand_id: brandId, template, subject: text.subject, body: text.body, updated_by: updatedBy })
    .onConflict(['brand_id', 'template'])
    .merge({ subject: text.subject, body: text.body, updated_by: updatedBy, updated_at: trx.fn.now() });
}

/** The audit log's entry for a template change (docs/merchants/merchant-accounts.md): only what moved of its switch and words. */
async function auditTemplate(trx: Knex.Transaction, action: string, before: TemplateView, after: TemplateView, brandId: string, actor: string): Promise<void> {
  const facts = (view: TemplateView) => ({ enabled: view.enabled, subject: view.subject, body: view.body });
  const changed = changedFields(facts(before), facts(after));
  if (Object.keys(changed.after).length > 0) await recordAudit(trx, { brandId, actor, action, subject: `email_template:${after.template}`, ...changed });
}

/**
 * A merchant's change to one template: switched on or off (the brand's setting), and/or new words
 * (a subject or body alone keeps the other as it is now; both replace them). Returns the template
 * as it is after; `actor` is who the template's record and the audit log name.
 */
export async function changeTemplate(
  trx: Knex.Transaction,
  brand: Brand,
  template: MailTemplate,
  change: { enabled?: boolean; subject?: string; body?: string },
  actor: string,
): Promise<TemplateView> {
  const current = await getTemplate(trx, brand, template);
  const switched = change.enabled === undefined || change.enabled === current.enabled ? brand : await updateBrand(trx, brand.brand_id, { [TEMPLATE_SWITCH[template]]: change.enabled });
  if (change.subject !== undefined || change.body !== undefined) {
    await saveText(trx, brand.brand_id, template, { subject: change.subject ?? current.subject, body: change.body ?? current.body }, actor);
  }
  const after = await getTemplate(trx, switched, template);
  await auditTemplate(trx, 'email_template.update', current, after, brand.brand_id, actor);
  return after;
}

/** Back to the default words in the brand's language. */
export async function resetTemplate(trx: Knex.Transaction, brand: Brand, template: MailTemplate, actor: string): Promise<TemplateView> {
  const current = await getTemplate(trx, brand, template);
  await trx('mail_templates').where({ brand_id: brand.brand_id, template }).delete();
  const after = await getTemplate(trx, brand, template);
  await auditTemplate(trx, 'email_template.reset', current, after, brand.brand_id, actor);
  return after;
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
