import { getAdvocate, listAdvocates } from '../../core/advocates/advocates';
import type { AdvocateStatus } from '../../core/advocates/advocate-status';
import { advocateView } from '../../core/advocates/advocate-page';
import { listApiKeys } from '../../core/brands/api-keys';
import { LANGUAGES, PLANS, REFEREE_OFFER_TYPES, REWARD_FULFILMENTS, brandSettingsSchema, getBrand, listBrands } from '../../core/brands/brand';
import { amountsInCurrency } from '../../core/brands/amounts-in-currency';
import { inviteUser, loginUrl } from '../../core/accounts/sign-in-links';
import { LOGIN_LINK_TTL_MINUTES, createLoginLink } from '../../core/dashboard/dashboard-sign-in';
import { migrateToLatest } from '../../core/db/migrate';
import { inTransaction } from '../../core/db/transaction';
import { DEFAULT_CURRENCY } from '../../core/currency';
import { Invalid } from '../../core/errors';
import { REVIEW_STATUSES, decideReview, listReviews } from '../../core/fraud/reviews';
import { rewardBalance } from '../../core/ledger/reward-ledger';
import { isMailbox } from '../../core/mail/mailbox';
import { addAdvocate, addAdvocateCode, changeAdvocateStatus, changeSettings, issueApiKey, openBrand, withdrawApiKey } from '../../core/program/merchant-changes';
import { advocateFlag, brandFlag, choiceFlag, currencyFlag, numberFlag, optionalFlag, requiredFlag } from './args';
import { publicUrlOf } from '../config';
import { percentagesWithin } from '../schemas/program-request';
import { CliError } from './cli-error';
import { type CliEnv, type Command, flagsFirst } from './command';
import { CLI_OPERATOR, invitationNote, linkSettingsOf } from './user-commands';

const REWARD_TYPES = ['fixed', 'percentage'] as const;

/** --review ID: a positive integer. */
function reviewFlag(flags: Parameters<Command['run']>[0]): number {
  const reviewId = numberFlag(flags, 'review', { integer: true });
  if (!reviewId) throw new CliError('--review is required (a review id, from `review list`)');
  return reviewId;
}

/** --flag yes|no → true/false; absent → undefined. */
function yesNoFlag(flags: Parameters<Command['run']>[0], name: string): boolean | undefined {
  const choice = choiceFlag(flags, name, ['yes', 'no'] as const);
  return choice === undefined ? undefined : choice === 'yes';
}

/** The program emails' settings (docs/merchants/program-emails.md): --email-<template> yes|no for each template, and the rest. */
function programEmailFlags(flags: Parameters<Command['run']>[0]) {
  const storeUrl = optionalFlag(flags, 'store-url');
  const parsedUrl = storeUrl === undefined || storeUrl === 'none' ? undefined : brandSettingsSchema.shape.store_url.safeParse(storeUrl);
  if (parsedUrl && !parsedUrl.success) throw new CliError(`--store-url must be an https URL of the store, like https://shop.example.com (got "${storeUrl}")`);
  const senderName = optionalFlag(flags, 'sender-name');
  return {
    language: choiceFlag(flags, 'language', LANGUAGES),
    sender_name: senderName === 'none' ? null : senderName,
    store_url: storeUrl === 'none' ? null : parsedUrl?.data,
    email_advocate_welcome: yesNoFlag(flags, 'email-advocate-welcome'),
    email_advocate_link_again: yesNoFlag(flags, 'email-advocate-link-again'),
    email_reward_earned: yesNoFlag(flags, 'email-reward-earned'),
    email_reward_approved: yesNoFlag(flags, 'email-reward-approved'),
    email_reward_paid: yesNoFlag(flags, 'email-reward-paid'),
    email_reward_reversed: yesNoFlag(flags, 'email-reward-reversed'),
    email_reward_issued: yesNoFlag(flags, 'email-reward-issued'),
    email_friend_offer: yesNoFlag(flags, 'email-friend-offer'),
    email_reengagement: yesNoFlag(flags, 'email-reengagement'),
    reengagement_days: numberFlag(flags, 'reengagement-days', { integer: true }),
    allowed_origins: allowedOriginsFlag(flags),
    auto_enroll_customers: yesNoFlag(flags, 'auto-enroll-customers'),
  };
}

/** --allowed-origins https://a.example,https://b.example | none: the storefront origins of the publishable key. */
function allowedOriginsFlag(flags: Parameters<Command['run']>[0]): string[] | undefined {
  const given = optionalFlag(flags, 'allowed-origins');
  if (given === undefined) return undefined;
  if (given === 'none') return [];
  const parsed = brandSettingsSchema.shape.allowed_origins.safeParse(given.split(',').map((value) => value.trim()).filter(Boolean));
  if (!parsed.success) throw new CliError(`--allowed-origins must be origins like https://shop.example.com, comma-separated (got "${given}")`);
  return parsed.data;
}

function brandSettingsFlags(flags: Parameters<Command['run']>[0]) {
  const settings = {
    reward_type: choiceFlag(flags, 'reward-type', REWARD_TYPES),
    reward_value: numberFlag(flags, 'reward-value'),
    referee_discount_type: choiceFlag(flags, 'referee-discount-type', REFEREE_OFFER_TYPES),
    referee_discount_value: numberFlag(flags, 'referee-discount-value'),
    referee_min_purchase: numberFlag(flags, 'referee-min-purchase'),
    referee_discount_cap: numberFlag(flags, 'referee-discount-cap'),
    referee_first_purchase_only: yesNoFlag(flags, 'referee-first-purchase-only'),
    referee_individual_use: yesNoFlag(flags, 'referee-individual-use'),
    attribution_model: choiceFlag(flags, 'attribution-model', ['last_click', 'first_click'] as const),
    attribution_window_days: numberFlag(flags, 'attribution-window-days', { integer: true }),
    count_test_orders: yesNoFlag(flags, 'count-test-orders'),
    reward_hold_days: numberFlag(flags, 'reward-hold-days', { integer: true }),
    allow_pending_redemption: yesNoFlag(flags, 'allow-pending-redemption'),
    reward_fulfilment: choiceFlag(flags, 'reward-fulfilment', REWARD_FULFILMENTS),
    fulfil_min_amount: numberFlag(flags, 'fulfil-min-amount'),
    reward_code_expiry_days: optionalFlag(flags, 'reward-code-expiry-days') === 'none' ? null : numberFlag(flags, 'reward-code-expiry-days', { integer: true }),
    fraud_self_referral: yesNoFlag(flags, 'fraud-self-referral'),
    fraud_velocity: yesNoFlag(flags, 'fraud-velocity'),
    fraud_disposable_email: yesNoFlag(flags, 'fraud-disposable-email'),
    fraud_max_per_advocate_hour: numberFlag(flags, 'fraud-max-per-advocate-hour', { integer: true }),
    fraud_max_per_ip_day: numberFlag(flags, 'fraud-max-per-ip-day', { integer: true }),
    fraud_ip_window_days: numberFlag(flags, 'fraud-ip-window-days', { integer: true }),
    ...programEmailFlags(flags),
  };
  for (const percentKey of [['reward_type', 'reward_value'], ['referee_discount_type', 'referee_discount_value']] as const) {
    const [typeKey, valueKey] = percentKey;
    if (settings[typeKey] === 'percentage' && (settings[valueKey] ?? 0) > 100) {
      throw new CliError(`${asFlag(valueKey)} is a percentage and must be at most 100`);
    }
  }
  // The brand's one settings schema bounds every value (PATCH /api/v1/brand and the dashboard use it too).
  const parsed = brandSettingsSchema.partial().safeParse(Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)));
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new CliError(`${asFlag(String(issue!.path[0]))} ${issue!.message}`);
  }
  return parsed.data;
}

/** A setting's field name as the flag that sets it: reward_hold_days → --reward-hold-days. */
const asFlag = (field: string) => `--${field.replace(/_/g, '-')}`;

/** The checks a setting passes beyond the schema (core's Invalid, naming the field), refused as the flag that set it. */
function checkedAsFlags(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof Invalid) throw new CliError(error.message.replace(/^[a-z_]+/, asFlag));
    throw error;
  }
}

/** `review approve` and `review reject`, once their flags are read. */
async function decide(
  { brandId, reviewId, decision }: { brandId: string; reviewId: number; decision: Parameters<typeof decideReview>[3] },
  { db }: CliEnv,
): Promise<unknown> {
  const brand = await getBrand(db, brandId);
  return inTransaction(db, (trx) => decideReview(trx, brand, reviewId, decision, CLI_OPERATOR.name));
}

/** `advocate deactivate` and `advocate reactivate`: the advocate as they are now. */
function advocateStatusCommand(verb: string, status: AdvocateStatus): Command {
  return flagsFirst(
    `advocate ${verb} --brand ID --advocate ADVOCATE_ID [--json]`,
    (flags) => ({ brandId: brandFlag(flags), advocateId: advocateFlag(flags) }),
    async ({ brandId, advocateId }, { db }) => ({ advocate: await inTransaction(db, (trx) => changeAdvocateStatus(trx, brandId, advocateId, status, CLI_OPERATOR.name)) }),
  );
}

export const coreCommands: Record<string, Command> = {
  'dashboard login': flagsFirst('dashboard login --brand ID [--json]', brandFlag, async (brandId, { db, config }) => {
    const link = await createLoginLink(db, brandId);
    return {
      url: loginUrl(publicUrlOf(config), link.brand_id, link.token),
      brand_id: link.brand_id,
      expires_at: link.expires_at.toISOString(),
      note: `Open the link within ${LOGIN_LINK_TTL_MINUTES} minutes; it signs in once.`,
    };
  }),
  migrate: {
    usage: 'migrate',
    async run(_flags, { db }) {
      return { migrations_run: await migrateToLatest(db) };
    },
  },
  'brand create': flagsFirst(
    'brand create --name N --plan starter|growth|premier [--currency USD] [--reward-type fixed|percentage --reward-value V] ' +
      '[--referee-discount-type fixed|percentage|free_shipping --referee-discount-value V] [--reward-hold-days N (default 30)] ' +
      '[--allow-pending-redemption yes|no] [--language en|fr|de|es] [--store-url https://…] [--owner-email E] [--json]',
    (flags) => {
      const name = requiredFlag(flags, 'name');
      const plan = choiceFlag(flags, 'plan', PLANS);
      if (!plan) throw new CliError(`--plan is required (one of ${PLANS.join(', ')})`);
      const currency = currencyFlag(flags);
      const ownerEmail = optionalFlag(flags, 'owner-email');
      if (ownerEmail !== undefined && !isMailbox(ownerEmail)) throw new CliError(`--owner-email must be an email address (got "${ownerEmail}")`);
      const settings = brandSettingsFlags(flags);
      checkedAsFlags(() => amountsInCurrency(currency ?? DEFAULT_CURRENCY, settings));
      return { input: { name, plan, ...(currency ? { currency } : {}), ...settings }, ownerEmail };
    },
    ({ input, ownerEmail }, { db, config }) =>
      inTransaction(db, async (trx) => {
        const { brand, key } = await openBrand(trx, input, config.keyEncryptionSecret, 'initial', CLI_OPERATOR.name);
        const created = { brand_id: brand.brand_id, api_key: key.api_key, key_id: key.key_id, brand };
        if (ownerEmail === undefined) return created;
        // The brand's first owner, invited with it: no brand without its owner, no owner without the brand.
        const owner = await inviteUser(trx, brand.brand_id, { email: ownerEmail, role: 'owner' }, CLI_OPERATOR, linkSettingsOf(config));
        return { ...created, owner, note: invitationNote(owner.email) };
      }),
  ),
  'brand list': {
    usage: 'brand list [--json]',
    async run(_flags, { db }) {
      return { brands: await listBrands(db) };
    },
  },
  'brand show': flagsFirst('brand show --brand ID [--json]', brandFlag, async (brandId, { db }) => ({ brand: await getBrand(db, brandId) })),
  'brand settings': flagsFirst(
    'brand settings --brand ID [--plan P] [--attribution-model last_click|first_click] [--attribution-window-days N] ' +
      '[--referee-discount-type fixed|percentage|free_shipping] [--referee-discount-value V] [--referee-min-purchase V] ' +
      '[--referee-discount-cap V] [--referee-first-purchase-only yes|no] [--referee-individual-use yes|no] ' +
      '[--reward-type fixed|percentage] [--reward-value V] [--count-test-orders yes|no] ' +
      '[--reward-hold-days N] [--allow-pending-redemption yes|no] [--reward-fulfilment payout|coupon|store_credit] [--fulfil-min-amount V] [--reward-code-expiry-days N|none] ' +
      '[--fraud-self-referral yes|no] [--fraud-velocity yes|no] [--fraud-disposable-email yes|no] ' +
      '[--fraud-max-per-advocate-hour N] [--fraud-max-per-ip-day N] [--fraud-ip-window-days N] ' +
      `[--language ${LANGUAGES.join('|')}] [--sender-name NAME|none] [--store-url https://…|none] ` +
      '[--email-advocate-welcome yes|no] [--email-advocate-link-again yes|no] [--email-reward-earned yes|no] [--email-reward-approved yes|no] [--email-reward-paid yes|no] [--email-reward-reversed yes|no] ' +
      '[--email-friend-offer yes|no] [--email-reengagement yes|no] [--reengagement-days N] [--allowed-origins https://…,…|none] [--auto-enroll-customers yes|no] [--json]',
    (flags) => {
      const brandId = brandFlag(flags);
      const plan = choiceFlag(flags, 'plan', PLANS);
      const changes = { ...brandSettingsFlags(flags), ...(plan ? { plan } : {}) };
      if (Object.keys(changes).length === 0) throw new CliError('nothing to change: pass at least one setting');
      return { brandId, changes };
    },
    async ({ brandId, changes }, { db }) => {
      const brand = await getBrand(db, brandId);
      checkedAsFlags(() => {
        percentagesWithin(brand, changes);
        amountsInCurrency(brand.currency, changes);
      });
      return { brand: await inTransaction(db, (trx) => changeSettings(trx, brandId, changes, CLI_OPERATOR.name)) };
    },
  ),
  'key create': flagsFirst(
    'key create --brand ID [--label L] [--publishable] [--json]',
    (flags) => ({ brandId: brandFlag(flags), label: optionalFlag(flags, 'label') ?? null, kind: flags.publishable ? ('publishable' as const) : ('secret' as const) }),
    async ({ brandId, label, kind }, { db, config }) => {
      await getBrand(db, brandId);
      return inTransaction(db, (trx) => issueApiKey(trx, brandId, config.keyEncryptionSecret, label, CLI_OPERATOR.name, kind));
    },
  ),
  'key list': flagsFirst('key list --brand ID [--json]', brandFlag, async (brandId, { db }) => ({ keys: await listApiKeys(db, brandId) })),
  'key revoke': flagsFirst(
    'key revoke --brand ID --key KEY_ID [--json]',
    (flags) => ({ brandId: brandFlag(flags), keyId: requiredFlag(flags, 'key') }),
    ({ brandId, keyId }, { db }) => inTransaction(db, (trx) => withdrawApiKey(trx, brandId, keyId, CLI_OPERATOR.name)),
  ),
  'advocate create': flagsFirst(
    'advocate create --brand ID --email E --first-name F [--last-name L] [--code C] [--json]',
    (flags) => {
      const brandId = brandFlag(flags);
      const email = requiredFlag(flags, 'email');
      if (!isMailbox(email)) throw new CliError(`--email must be an email address (got "${email}")`);
      const advocate = { email, first_name: requiredFlag(flags, 'first-name'), last_name: optionalFlag(flags, 'last-name') ?? null, code: optionalFlag(flags, 'code') };
      return { brandId, advocate };
    },
    ({ brandId, advocate: input }, { db }) =>
      inTransaction(db, async (trx) => {
        const brand = await getBrand(trx, brandId);
        const advocate = await addAdvocate(trx, brandId, input, CLI_OPERATOR.name);
        return { advocate_id: advocate.advocate_id, referral_code: advocate.referral_codes[0], share_link: advocateView(brand, advocate).share_link, advocate };
      }),
  ),
  'advocate list': flagsFirst('advocate list --brand ID [--json]', brandFlag, async (brandId, { db }) => ({ advocates: await listAdvocates(db, brandId) })),
  'advocate add-code': flagsFirst(
    'advocate add-code --brand ID --advocate ADVOCATE_ID --code C [--kind referral|coupon] [--json]',
    (flags) => ({
      brandId: brandFlag(flags),
      advocateId: advocateFlag(flags),
      code: requiredFlag(flags, 'code'),
      kind: choiceFlag(flags, 'kind', ['referral', 'coupon'] as const) ?? 'referral',
    }),
    ({ brandId, advocateId, code, kind }, { db }) =>
      inTransaction(db, async (trx) => ({ advocate: await addAdvocateCode(trx, brandId, advocateId, code, kind, CLI_OPERATOR.name), code, kind })),
  ),
  'advocate deactivate': advocateStatusCommand('deactivate', 'deactivated'),
  'advocate reactivate': advocateStatusCommand('reactivate', 'active'),
  'advocate balance': flagsFirst(
    'advocate balance --brand ID --advocate ADVOCATE_ID [--json]',
    (flags) => ({ brandId: brandFlag(flags), advocateId: advocateFlag(flags) }),
    async ({ brandId, advocateId }, { db }) => {
      await getAdvocate(db, brandId, advocateId);
      return rewardBalance(db, brandId, advocateId);
    },
  ),
  'review list': flagsFirst(
    'review list --brand ID [--status open|approved|rejected] [--after REVIEW_ID] [--limit N] [--json]',
    (flags) => {
      const brandId = brandFlag(flags);
      const limit = numberFlag(flags, 'limit', { integer: true }) ?? 50;
      if (limit < 1 || limit > 200) throw new CliError('--limit must be from 1 to 200');
      return { brandId, query: { status: choiceFlag(flags, 'status', REVIEW_STATUSES), after: numberFlag(flags, 'after', { integer: true }), limit } };
    },
    async ({ brandId, query }, { db }) => listReviews(db, await getBrand(db, brandId), query),
  ),
  'review approve': flagsFirst(
    'review approve --brand ID --review REVIEW_ID [--note TEXT] [--by NAME] [--json]',
    (flags) => ({
      brandId: brandFlag(flags),
      reviewId: reviewFlag(flags),
      decision: { decision: 'approved' as const, decided_by: optionalFlag(flags, 'by') ?? 'cli', note: optionalFlag(flags, 'note') ?? null },
    }),
    decide,
  ),
  'review reject': flagsFirst(
    'review reject --brand ID --review REVIEW_ID --reason TEXT [--by NAME] [--json]',
    (flags) => ({
      brandId: brandFlag(flags),
      reviewId: reviewFlag(flags),
      decision: { decision: 'rejected' as const, decided_by: optionalFlag(flags, 'by') ?? 'cli', note: requiredFlag(flags, 'reason') },
    }),
    decide,
  ),
};
