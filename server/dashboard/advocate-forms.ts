import { advocateView } from '../../core/advocates/advocate-page';
import { createImport, getImport, listImports } from '../../core/advocates/advocate-imports';
import { getAdvocate } from '../../core/advocates/advocates';
import { inTransaction } from '../../core/db/transaction';
import { Invalid } from '../../core/errors';
import { addAdvocate, addAdvocateCode, changeAdvocateStatus, editAdvocate } from '../../core/program/merchant-changes';
import type { Ctx } from '../app-context';
import { requireConfirmation } from './confirmation';
import { addCodeSchema, createAdvocateSchema, updateAdvocateSchema } from '../schemas/advocate-request';
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS, readAdvocatesCsv } from './advocate-import';
import { sendCsv } from './csv-export';
import { pathIdOf } from './dashboard-query';
import { runForm, seeOther } from './form-actions';
import { doneOf } from './form-notice';
import { renderPage } from './render-page';
import { advocateRewardCodes, retryNotice } from './reward-code-forms';
import { readUpload } from './upload';

type Refusal = { status: number; message: string };

/** The add form's fields, as the merchant reads them. */
const ADD_FIELDS = { email: 'Email', first_name: 'First name', last_name: 'Last name', code: 'Code' } as const;
type AddField = keyof typeof ADD_FIELDS;

/** A refusal's words beside the field it names (its message starts with it: "email …", "code …"), else none. */
function fieldOfMessage(message: string): AddField | null {
  const field = (Object.keys(ADD_FIELDS) as AddField[]).find((name) => message.startsWith(`${name} `) || message.startsWith(`${name}:`) || message.startsWith(`an advocate with ${name} `));
  return field ?? null;
}

const ADVOCATE_NOTICES = ['added', 'saved', 'code_added', 'deactivated', 'reactivated'] as const;
type AdvocateNotice = (typeof ADVOCATE_NOTICES)[number];

/** The advocate page's status line after a form, from the advocate as stored now (a code named by the link only if it is theirs). */
function advocateNotice(ctx: Ctx, advocate: { email: string; referral_codes: string[] }): string | null {
  const code = typeof ctx.query.code === 'string' && advocate.referral_codes.includes(ctx.query.code) ? ctx.query.code : null;
  const texts: Record<AdvocateNotice, string> = {
    added: `${advocate.email} joined with code ${advocate.referral_codes[0]}.`,
    saved: 'Saved.',
    code_added: code ? `Code ${code} added.` : 'Code added.',
    deactivated: 'Deactivated: their codes no longer attribute new orders; their history and earned rewards stay.',
    reactivated: 'Reactivated: their codes attribute new orders again.',
  };
  const done = doneOf(ctx, ADVOCATE_NOTICES);
  return done ? texts[done] : null;
}

/** The advocate page's management panel: status, share link, edit, add a code, deactivate. */
export async function advocatePanel(ctx: Ctx, id: number, refusal?: Refusal) {
  const { brand } = ctx.state.viewer!;
  const stored = await getAdvocate(ctx.app.context.deps.db, brand.brand_id, id);
  return {
    advocate: advocateView(brand, stored),
    notice: advocateNotice(ctx, stored) ?? retryNotice(ctx),
    refusal: refusal?.message ?? null,
    ...(await advocateRewardCodes(ctx, id)),
  };
}

/** What the Advocates list shows above the table: the add and import forms, and the latest imports. */
export async function advocatesPanel(ctx: Ctx, refusal?: Refusal & { form?: Record<string, string>; fields?: Record<string, string> }) {
  const { brand } = ctx.state.viewer!;
  return {
    imports: await listImports(ctx.app.context.deps.db, brand.brand_id, 5),
    maxImportRows: MAX_IMPORT_ROWS,
    refusal: refusal?.message ?? null,
    form: refusal?.form ?? {},
    fieldErrors: refusal?.fields ?? {},
  };
}

/** POST /dashboard/advocates: one advocate, as POST /api/v1/advocates (the welcome email follows). */
export async function addAdvocateForm(
  ctx: Ctx,
  form: URLSearchParams,
  back: (refusal: Refusal & { form: Record<string, string>; fields: Record<string, string> }) => Promise<void>,
): Promise<void> {
  const values = Object.fromEntries(Object.keys(ADD_FIELDS).map((name) => [name, form.get(name) ?? '']));
  const marked = 'Nothing was added: fix what is marked below.';
  await runForm(
    ctx,
    form,
    async () => {
      // Every field's problem at once, each beside its field, in the API's words under the field's label.
      const checked = createAdvocateSchema.safeParse(Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== '')));
      if (!checked.success) {
        const fields: Record<string, string> = {};
        for (const issue of checked.error.issues) {
          const name = String(issue.path[0] ?? '') as AddField;
          if (name in ADD_FIELDS) fields[name] ??= `${ADD_FIELDS[name]}: ${issue.message.replace(new RegExp(`^${name}:?\\s*`), '')}`;
        }
        return back({ status: 400, message: marked, form: values, fields });
      }
      const viewer = ctx.state.viewer!;
      const advocate = await inTransaction(ctx.app.context.deps.db, (trx) => addAdvocate(trx, viewer.brand.brand_id, checked.data, viewer.actor));
      seeOther(ctx, `/dashboard/advocates/${advocate.advocate_id}`, { done: 'added' satisfies AdvocateNotice });
    },
    (status, message) => {
      const field = fieldOfMessage(message);
      const words = message.charAt(0).toUpperCase() + message.slice(1);
      return back({ status, message: field ? marked : words, form: values, fields: field ? { [field]: words } : {} });
    },
  );
}

/** POST /dashboard/advocates/:id/edit, /codes, /deactivate, /reactivate. */
export async function changeAdvocateForm(ctx: Ctx, id: string, action: 'edit' | 'codes' | 'deactivate' | 'reactivate', form: URLSearchParams, back: (refusal: Refusal) => Promise<void>): Promise<void> {
  const advocateId = pathIdOf(id, 'advocate');
  await runForm(
    ctx,
    form,
    async () => {
      const viewer = ctx.state.viewer!;
      const brandId = viewer.brand.brand_id;
      const { db } = ctx.app.context.deps;
      let done: AdvocateNotice;
      let code: string | undefined;
      if (action === 'edit') {
        const changes = updateAdvocateSchema.parse({ email: form.get('email') ?? '', first_name: form.get('first_name') ?? '', last_name: (form.get('last_name') ?? '').trim() || null });
        await inTransaction(db, (trx) => editAdvocate(trx, brandId, advocateId, changes, viewer.actor));
        done = 'saved';
      } else if (action === 'codes') {
        const added = addCodeSchema.parse({ code: form.get('code') ?? '', kind: form.get('kind') || undefined });
        const advocate = await inTransaction(db, (trx) => addAdvocateCode(trx, brandId, advocateId, added.code, added.kind ?? 'referral', viewer.actor));
        done = 'code_added';
        code = advocate.referral_codes.find((stored) => stored.toUpperCase() === added.code.toUpperCase()) ?? added.code;
      } else {
        if (action === 'deactivate') requireConfirmation(form, 'Yes, deactivate');
        const status = action === 'deactivate' ? 'deactivated' : 'active';
        await inTransaction(db, (trx) => changeAdvocateStatus(trx, brandId, advocateId, status, viewer.actor));
        done = action === 'deactivate' ? 'deactivated' : 'reactivated';
      }
      seeOther(ctx, `/dashboard/advocates/${advocateId}`, { done, code });
    },
    (status, message) => back({ status, message }),
  );
}

/** POST /dashboard/advocates/import: the file checked line by line as it arrives; the worker creates the advocates, in chunks, with progress. */
export async function importAdvocatesForm(ctx: Ctx, back: (refusal: Refusal) => Promise<void>): Promise<void> {
  const upload = await readUpload(ctx, MAX_IMPORT_BYTES, readAdvocatesCsv);
  await runForm(
    ctx,
    upload.fields,
    async () => {
      if (!upload.file) throw new Invalid('file: choose the advocates file (CSV) to import');
      const { rows, refused } = upload.file.read();
      const viewer = ctx.state.viewer!;
      const sendWelcome = upload.fields.get('send_welcome') === 'on';
      const created = await inTransaction(ctx.app.context.deps.db, (trx) => createImport(trx, viewer.brand.brand_id, { rows, refused, fileName: upload.file!.name.slice(0, 200), sendWelcome, actor: viewer.actor }));
      seeOther(ctx, `/dashboard/advocates/imports/${created.id}`);
    },
    (status, message) => back({ status, message }),
  );
}

/** GET /dashboard/advocates/imports/:id: the import's progress (the page refreshes itself until done), its refused lines; ?format=csv exports those. */
export async function importPage(ctx: Ctx, id: string): Promise<void> {
  const importId = pathIdOf(id, 'import');
  const { brand } = ctx.state.viewer!;
  const view = await getImport(ctx.app.context.deps.db, brand.brand_id, importId);
  if (ctx.query.format === 'csv') {
    return sendCsv(ctx, `import-${id}-refused`, [
      ['line', (r) => r.line],
      ['email', (r) => r.email],
      ['field', (r) => r.field],
      ['value', (r) => r.value],
      ['reason', (r) => r.reason],
    ], view.refused);
  }
  if (ctx.query.format === 'json') {
    ctx.body = { status: view.status, total_rows: view.total_rows, done_rows: view.done_rows, created: view.created, refused: view.refused.length };
    return;
  }
  const running = view.status === 'queued' || view.status === 'running';
  // Refreshed by a meta refresh; inside a platform's admin (whose session tokens last a minute) by dashboard.js instead.
  const embedded = ctx.state.viewer!.embedded !== null;
  renderPage(ctx, 'advocate-import', { title: 'Import · Advocates', section: '/dashboard/advocates', imported: view, running, refreshSeconds: running && !embedded ? 2 : null, shownRefusals: view.refused.slice(0, 200) });
}
