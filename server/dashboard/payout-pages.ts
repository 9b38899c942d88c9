import { currencyExponent } from '../../core/currency';
import { inTransaction } from '../../core/db/transaction';
import { decimalFromMinor, toMinor } from '../../core/money';
import { Invalid } from '../../core/errors';
import { owedByAdvocates, paidPayouts, payoutCandidates } from '../../core/payouts/payouts';
import { recordPayouts } from '../../core/program/merchant-changes';
import type { Ctx } from '../app-context';
import { CliError } from '../cli/cli-error';
import { parsePaidCsv, payoutsCsv } from '../cli/payouts-csv';
import { runForm, seeOther } from './form-actions';
import { countOf, doneOf } from './form-notice';
import { counted } from '../../core/counted';
import { formatMoney, renderPage } from './render-page';
import { limitedCsvText, readUpload } from './upload';
import { refusedRewardCodes, retryNotice } from './reward-code-forms';

const PAGE = '/dashboard/payouts';
/** A paid file lists at most 10,000 payouts (as POST /api/v1/payouts/mark-paid does): well under this. */
const MAX_PAID_FILE_BYTES = 5 * 1_048_576;
const MAX_PAID_ROWS = 10_000;

/** The status line after a paid file: the redirect carries its counts and total (numbers, never text). */
function paidNotice(ctx: Ctx, currency: string): string | null {
  if (doneOf(ctx, ['recorded']) === null) return null;
  const [recorded, skipped] = [countOf(ctx, 'recorded'), countOf(ctx, 'skipped') ?? 0];
  const total = typeof ctx.query.total === 'string' && /^\d{1,15}(\.\d{1,4})?$/.test(ctx.query.total) ? Number(ctx.query.total) : null;
  if (recorded === null || total === null) return null;
  if (recorded === 0) return `Nothing changed: ${counted(skipped, 'payout was', 'payouts were')} already recorded.`;
  return `Recorded ${counted(recorded, 'payout', 'payouts')} (${formatMoney(total, currency)})` + (skipped ? `; ${counted(skipped, 'was', 'were')} already recorded and skipped.` : '.');
}


/** GET /dashboard/payouts: what each advocate may be paid now, the CSV to pay from, the upload of the paid file, the payouts recorded. */
export async function payoutsPage(ctx: Ctx, refusal?: { status: number; message: string }): Promise<void> {
  const { brand } = ctx.state.viewer!;
  const { db } = ctx.app.context.deps;
  const payable = await payoutCandidates(db, brand, 0);
  if (ctx.query.format === 'csv') {
    ctx.set('Content-Disposition', `attachment; filename="payouts-${new Date().toISOString().slice(0, 10)}.csv"`);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.body = payoutsCsv(payable);
    return;
  }
  const past = await paidPayouts(db, brand, 100);
  const owed = await owedByAdvocates(db, brand);
  const total = payable.reduce((sum, line) => sum + line.amount, 0);
  renderPage(
    ctx,
    'payouts',
    {
      title: 'Payouts',
      section: PAGE,
      payable,
      total,
      owed,
      past,
      notice: paidNotice(ctx, brand.currency) ?? retryNotice(ctx),
      ...(await refusedRewardCodes(ctx)),
      refusal: refusal?.message ?? null,
    },
    refusal?.status,
  );
}

/** POST /dashboard/payouts/paid: the paid file (the downloaded CSV, or any with payout_id, advocate_id, amount), recorded all or none. */
export async function uploadPaidForm(ctx: Ctx): Promise<void> {
  const upload = await readUpload(ctx, MAX_PAID_FILE_BYTES, limitedCsvText(MAX_PAID_ROWS));
  await runForm(
    ctx,
    upload.fields,
    async () => {
      const text = upload.file?.read() ?? '';
      if (text.trim() === '') throw new Invalid('file: choose the paid payouts file (CSV) to upload');
      let rows;
      try {
        rows = parsePaidCsv(text);
      } catch (error) {
        if (error instanceof CliError) throw new Invalid(`file ${upload.file!.name}: ${error.message}`);
        throw error;
      }
      if (rows.length > MAX_PAID_ROWS) throw new Invalid('file: at most 10,000 payouts per file');
      const viewer = ctx.state.viewer!;
      const result = await inTransaction(ctx.app.context.deps.db, (trx) => recordPayouts(trx, viewer.brand, rows, viewer.actor));
      seeOther(ctx, PAGE, { done: 'recorded', recorded: result.recorded, skipped: result.already_recorded, total: result.total_paid });
    },
    (status, message) => payoutsPage(ctx, { status, message }),
  );
}

