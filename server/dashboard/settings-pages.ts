import { inTransaction } from '../../core/db/transaction';
import { changeSettings } from '../../core/program/merchant-changes';
import type { Ctx } from '../app-context';
import { programSettingsProblems } from '../program-settings-check';
import { checkCsrf } from './dashboard-session';
import { seeOther } from './form-actions';
import { renderPage } from './render-page';
import { SETTING_SECTIONS, type SettingsRefusal, errorsOfProblems, parseSettingsForm, refusalOfError } from './settings-form';

/** GET /dashboard/settings: the program's settings, one form; a refused save comes back with each bad field's message beside it. */
export function settingsPage(ctx: Ctx, refusal?: SettingsRefusal): void {
  const { brand } = ctx.state.viewer!;
  const values = refusal?.values ?? brand;
  renderPage(
    ctx,
    'settings',
    {
      title: 'Program settings',
      section: '/dashboard/settings',
      sections: SETTING_SECTIONS,
      values,
      errors: refusal?.errors ?? {},
      currency: brand.currency,
      notice: ctx.query.saved === '1' ? 'Settings saved.' : null,
      refusal: refusal ? `Nothing was saved: ${Object.keys(refusal.errors).length === 1 ? 'a field needs' : 'some fields need'} a change (marked below).` : null,
    },
    refusal ? 400 : 200,
  );
}

/**
 * POST /dashboard/settings: every field checked at once — by the brand schema, then what passed by
 * the checks after it (percentages, amounts in the currency, what the platforms can apply) — and
 * every refusal shown beside its field; with none, saved in one change (the audit log keeps what moved).
 */
export async function saveSettingsForm(ctx: Ctx, form: URLSearchParams): Promise<void> {
  checkCsrf(ctx, form);
  const { patch, errors, values } = parseSettingsForm(form);
  const viewer = ctx.state.viewer!;
  const all = { ...errorsOfProblems(await programSettingsProblems(ctx, viewer.brand, patch)), ...errors };
  if (Object.keys(all).length > 0) return settingsPage(ctx, { errors: all, values });
  try {
    await inTransaction(ctx.app.context.deps.db, (trx) => changeSettings(trx, viewer.brand.brand_id, patch, viewer.actor));
  } catch (error) {
    const refusal = refusalOfError(error, form);
    if (!refusal) throw error;
    return settingsPage(ctx, refusal);
  }
  seeOther(ctx, '/dashboard/settings', { saved: 1 });
}
