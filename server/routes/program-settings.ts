import type Router from '@koa/router';
import { listApiKeys } from '../../core/brands/api-keys';
import { currencyExponent } from '../../core/currency';
import { inTransaction } from '../../core/db/transaction';
import { NotFound } from '../../core/errors';
import { amountFromMinor, toMinor } from '../../core/money';
import { owedByAdvocates, payoutCandidates } from '../../core/payouts/payouts';
import { changeSettings, issueApiKey, recordPayouts, withdrawApiKey } from '../../core/program/merchant-changes';
import type { AppContext, AppState, Ctx, Middleware } from '../app-context';
import { actorOf } from './api-actor';
import { answer as ok } from './answer';
import { UUID_PATTERN } from '../middleware/authenticate-api-key';
import { parseJsonObject, parseOptionalJsonObject } from '../middleware/json-body';
import { brandPatchSchema, createApiKeySchema, markPaidSchema, payoutsQuerySchema } from '../schemas/program-request';
import { checkProgramSettings } from '../program-settings-check';

/** GET /brand: the brand and its program settings. */
const showBrand: Middleware = async (ctx) => ok(ctx, ctx.state.brand!);

/** PATCH /brand: change settings; a bad value is a 400 naming its field, and nothing changes. */
const patchBrand: Middleware = async (ctx) => {
  const patch = brandPatchSchema.parse(parseJsonObject(ctx.state.rawBody));
  await checkProgramSettings(ctx, ctx.state.brand!, patch);
  ok(ctx, await inTransaction(ctx.app.context.deps.db, (trx) => changeSettings(trx, ctx.state.brand!.brand_id, patch, actorOf(ctx))));
};

/**
 * GET /payouts?min=: what each advocate may be paid now (approved, unpaid), with the payout id to
 * record it under; and apart, what advocates owe (never payable; their next rewards pay it).
 */
const payable: Middleware = async (ctx) => {
  const { min } = payoutsQuerySchema.parse(ctx.query);
  const brand = ctx.state.brand!;
  const { db } = ctx.app.context.deps;
  const payouts = await payoutCandidates(db, brand, min ?? 0);
  const exponent = currencyExponent(brand.currency);
  const total = amountFromMinor(payouts.reduce((sum, line) => sum + toMinor(line.amount, exponent), 0), exponent);
  ok(ctx, { payouts, count: payouts.length, currency: brand.currency, total, owed: await owedByAdvocates(db, brand) });
};

/** POST /payouts/mark-paid: all of it or none; a payout id already recorded is skipped, so a retry changes nothing. */
const paid: Middleware = async (ctx) => {
  const { payouts } = markPaidSchema.parse(parseJsonObject(ctx.state.rawBody));
  const brand = ctx.state.brand!;
  const rows = payouts.map((payout, index) => ({ row: index + 1, ...payout }));
  ok(ctx, await inTransaction(ctx.app.context.deps.db, (trx) => recordPayouts(trx, brand, rows, actorOf(ctx))));
};

/** POST /api-keys: 201 with the new key, shown this once. */
const createKey: Middleware = async (ctx) => {
  const { label, kind } = createApiKeySchema.parse(parseOptionalJsonObject(ctx.state.rawBody));
  const { db, config } = ctx.app.context.deps;
  ok(ctx, await inTransaction(db, (trx) => issueApiKey(trx, ctx.state.brand!.brand_id, config.keyEncryptionSecret, label ?? null, actorOf(ctx), kind)), 201);
};

const listKeys: Middleware = async (ctx) => ok(ctx, await listApiKeys(ctx.app.context.deps.db, ctx.state.brand!.brand_id));

/** DELETE /api-keys/{id}: revoked at once, in every server process (the key cache hears it). */
const revokeKey: Middleware = async (ctx) => {
  const keyId = String((ctx as Ctx & { params: Record<string, string> }).params.id);
  if (!UUID_PATTERN.test(keyId)) throw new NotFound(`key ${keyId} not found`);
  ok(ctx, await inTransaction(ctx.app.context.deps.db, (trx) => withdrawApiKey(trx, ctx.state.brand!.brand_id, keyId, actorOf(ctx))));
};

/** The merchant's program over REST (settings, payouts, keys), each after `guard` (body, API key, plan). */
export function programSettingsRoutes(router: Router<AppState, AppContext>, ...guard: Middleware[]): void {
  router.get('/brand', ...guard, showBrand);
  router.patch('/brand', ...guard, patchBrand);
  router.get('/payouts', ...guard, payable);
  router.post('/payouts/mark-paid', ...guard, paid);
  router.post('/api-keys', ...guard, createKey);
  router.get('/api-keys', ...guard, listKeys);
  router.delete('/api-keys/:id', ...guard, revokeKey);
}
