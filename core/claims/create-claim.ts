import type { Knex } from 'knex';
import { type ReferralCodeOwner, findReferralCode, lockAdvocate } from '../advocates/advocates';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { lockKey } from '../db/advisory-lock';
import { eligibilityFor } from '../eligibility/check-eligibility';
import { type Currency, currencyOf, requireCurrency } from '../currency';
import { Conflict, Invalid, NotFound, Unprocessable } from '../errors';
import { redeemReward, returnIssued, rewardBalance } from '../ledger/reward-ledger';
import { type Minor, amountFromDecimal, amountFromMinor, decimalFromMinor, toMinor } from '../money';
import { enqueueMail } from '../mail/enqueue-mail';
import { isMailbox } from '../mail/mailbox';
import { friendOfferMail } from '../mail/program-mail';
import { emitWebhookEvents } from '../webhooks/emit-event';
import { type DiscountRule, claimAmounts } from './claim-discount';
import type { ClaimInput } from './claim-input';
import { CLAIM_COLUMNS, type ClaimRecord, type ClaimRow, toClaim } from './claim-records';
import type { ClaimStatus } from './claim-status';

/** The API's view of a stored claim. */
export interface ClaimView {
  id: number;
  claim_id: number;
  referral_code: string;
  status: ClaimStatus;
  raw_value: number;
  claim_value: number;
  discount_applied: number;
  advocate_id: number;
  created_at: string /* ISO */;
}

export function toClaimView(claim: ClaimRecord): ClaimView {
  return {
    id: claim.claim_id,
    claim_id: claim.claim_id,
    referral_code: claim.referral_code,
    status: claim.status,
    raw_value: amountFromDecimal(claim.raw_value),
    claim_value: amountFromDecimal(claim.claim_value),
    discount_applied: amountFromDecimal(claim.discount_applied),
    advocate_id: claim.advocate_id,
    created_at: new Date(claim.created_at).toISOString(),
  };
}

export interface CreateClaimOptions {
  /** false: a connector reports a redemption that already happened, so eligibility is not enforced. */
  enforceEligibility?: boolean;
  /** 'reuse': a duplicate returns the customer's claim of the last 24 h instead of a Conflict. */
  onDuplicate?: 'refuse' | 'reuse';
  /** An advocate claim that spends a reward code (reward-code-claim.ts): it spends the code's money, not the balance. */
  spendsIssue?: { issueId: number; amount: Minor };
}

/**
 * Creates a `pending` claim. Unknown code → NotFound; the same email and code within 24 h →
 * Conflict with the first claim_id; a referral claim by an ineligible customer → Invalid with the
 * eligibility code.
 */
export async function createClaim(trx: Knex.Transaction, brand: Brand, input: ClaimInput): Promise<ClaimView> {
  const owner = await findReferralCode(trx, brand.brand_id, input.referral_code);
  if (!owner) throw new NotFound(`referral_code ${input.referral_code} not found`);
  return toClaimView(await createClaimFor(trx, brand, owner, input, claimCurrency(brand, input)));
}

/**
 * createClaim for a code already resolved to its advocate (input.referral_code is not looked up
 * again), in the brand's currency as the caller resolved it (claimCurrency, or the order's money).
 */
export async function createClaimFor(
  trx: Knex.Transaction,
  brand: Brand,
  owner: ReferralCodeOwner,
  input: ClaimInput,
  currency: Currency,
  options: CreateClaimOptions = {},
): Promise<ClaimRecord> {
  const email = normalizeEmail(input.email);

  // One customer's claims at one brand are decided one at a time (duplicates, already_redeemed).
  await lockKey(trx, `claim:${brand.brand_id}:${email}`);
  const duplicate: ClaimRow | undefined = await trx('claims')
    .select(CLAIM_COLUMNS)
    .where({ brand_id: brand.brand_id, email_normalized: email, referral_code: owner.code })
    .andWhere('created_at', '>=', trx.raw(`now() - interval '24 hours'`))
    .orderBy('created_at')
    .first();
  if (duplicate && options.onDuplicate === 'reuse') return toClaim(duplicate);
  if (duplicate) {
    throw new Conflict(`a claim for ${email} with referral_code ${owner.code} was already made within 24 hours`, {
      claim_id: Number(duplicate.claim_id),
    });
  }

  if (options.enforceEligibility !== false) {
    const eligibility = await eligibilityFor(trx, brand, owner, input.email, input.type);
    if (!eligibility.eligible) throw new Invalid(eligibility.message, { error_code: eligibility.error });
  }

  const available = input.type !== 'advocate' ? 0 : options.spendsIssue ? options.spendsIssue.amount : await availableReward(trx, brand, owner, currency);
  const amounts = claimAmounts(
    input,
    input.type === 'advocate' ? { type: 'fixed', value: amountFromMinor(available, currency.exponent) } : refereeDiscount(brand),
    currency,
  );
  const decimal = (minor: Minor) => decimalFromMinor(minor, currency.exponent);
  const [row]: ClaimRow[] = await trx('claims')
    .insert({
      brand_id: brand.brand_id,
      advocate_id: owner.advocate_id,
      referral_code: owner.code,
      email: input.email.trim(),
      email_normalized: email,
      customer_name: input.customer_name ?? null,
      phone: input.phone ?? null,
      visitor_id: input.visitor_id ?? null,
      order_id: input.order_id ?? null,
      type: input.type,
      status: 'pending' satisfies ClaimStatus,
      raw_value: decimal(amounts.raw_value),
      claim_value: decimal(amounts.claim_value),
      discount_applied: decimal(amounts.discount_applied),
      discount_value: input.discount_value ?? null,
      discount_type: input.discount_type ?? null,
      products: JSON.stringify(input.products),
      coupons_applied: JSON.stringify(input.coupons_applied),
      metadata: JSON.stringify(input.metadata),
      source: input.source ?? null,
    })
    .returning(CLAIM_COLUMNS);
  const claim = toClaim(row!);

  if (input.type === 'advocate') {
    // The ledger never goes below zero: at most what the advocate has is redeemed.
    const redeemed = Math.min(amounts.discount_applied, available);
    // A spent code's money comes back from the code first; what the order did not take stays in the balance.
    const spent = options.spendsIssue;
    if (spent) await returnIssued(trx, { brandId: brand.brand_id, advocateId: owner.advocate_id, issueId: spent.issueId, amount: spent.amount, exponent: currency.exponent });
    await redeemReward(trx, { brandId: brand.brand_id, advocateId: owner.advocate_id, claimId: claim.claim_id, amount: redeemed, exponent: currency.exponent });
  }
  // Webhooks (docs/api/webhooks.md): in this transaction, so the event commits with the claim.
  await emitWebhookEvents(trx, brand.brand_id, [{ type: 'claim.created', data: toClaimView(claim) }]);
  // An advocate referred a friend by email (no order yet): the friend hears of their offer (docs/merchants/program-emails.md).
  if (input.type === 'referral' && !input.order_id && isMailbox(input.email)) {
    await enqueueMail(trx, [friendOfferMail(brand.brand_id, { email: input.email, emailNormalized: email }, { advocateId: owner.advocate_id, code: owner.code })]);
  }
  return claim;
}

/** The brand's referee discount, with its minimum purchase and cap. */
function refereeDiscount(brand: Brand): DiscountRule {
  // Free shipping takes nothing off the items: the checkout waives the shipping (a claim may report it as discount_applied).
  const type = brand.referee_discount_type;
  return {
    type: type === 'free_shipping' ? 'fixed' : type,
    value: type === 'free_shipping' ? 0 : brand.referee_discount_value,
    min_purchase: brand.referee_min_purchase,
    cap: brand.referee_discount_cap,
  };
}

/**
 * What the advocate may spend now (approved, or pending too where the brand allows it), in the
 * brand's minor units. Takes the advocate's row lock first: payouts take it too, so a redemption
 * and a payout never both spend the same money.
 */
async function availableReward(trx: Knex.Transaction, brand: Brand, owner: ReferralCodeOwner, currency: Currency): Promise<Minor> {
  await lockAdvocate(trx, brand.brand_id, owner.advocate_id);
  const { balance } = await rewardBalance(trx, brand.brand_id, owner.advocate_id, brand.allow_pending_redemption);
  return Math.max(0, toMinor(balance, currency.exponent));
}

/** A claim's discount amounts are in the brand's currency (as are its rules and the reward ledger): another is refused. */
function claimCurrency(brand: Brand, input: ClaimInput): Currency {
  if (input.currency != null && requireCurrency(input.currency) !== brand.currency) {
    throw new Unprocessable(
      `currency: claims are in the brand's currency (${brand.currency}), not ${requireCurrency(input.currency)}`,
      {},
      'currency_mismatch',
    );
  }
  return currencyOf(brand.currency);
}
