import type { ReferralCodeOwner } from '../advocates/advocates';
import type { Brand } from '../brands/brand';
import type { ClaimRecord } from '../claims/claim-records';
import type { FraudSignals } from '../fraud/fraud-rules';
import type { ReviewSummary } from '../fraud/reviews';
import type { NewRewardOptions } from '../rewards/reward-records';
import type { OrderCodes, ReferralFacts } from './attribute-conversion';
import type { ConversionInput } from './conversion-input';
import type { ConversionMoney } from './conversion-money';
import type { ExistingConversion } from './conversion-records';
import type { ConversionView } from './conversion-view';
import type { NewConversion } from './insert-conversions';

/** A paid order as every channel reports it (REST, Shopify, Medusa). */
export interface PaidOrderInput extends OrderCodes {
  conversion: ConversionInput;
  /** Where a claim for a redeemed referral discount code comes from (`shopify`, `medusa`); none: no claim. */
  claim_source?: string | null;
  /** Create the reward `in_review` (a fraud review approves or voids it) instead of held or approved. */
  reward_in_review?: boolean;
}

/** A paid order with the brand it belongs to. */
export interface PaidOrder {
  brand: Brand;
  order: PaidOrderInput;
}

export type ConversionResult =
  | { attributed: false }
  | {
      attributed: true;
      duplicate: boolean;
      conversion: ConversionView;
      /** The fraud review holding its reward (core/fraud), or null when the rules let it through. */
      review: ReviewSummary | null;
    };

export interface PaidOrderResult {
  result: ConversionResult;
  /** The claim the conversion is linked to. */
  claim_id: number | null;
}

/**
 * What the paid-order use case (convert-paid-order.ts) asks of the database. The answers are as
 * if each order were recorded alone, one after the other; how a batch of orders gets there (its
 * look-ups read once, its new conversions written in one statement) is the implementation's
 * business (batched-paid-order-store.ts), not the use case's.
 */
export interface PaidOrderStore extends ReferralFacts {
  /** The conversion already recorded for this order (an earlier order of the batch included). */
  existingConversion(brandId: string, input: ConversionInput): Promise<ExistingConversion | undefined>;
  /** A repeat written: a pending conversion reported completed is upgraded (completeIfPending). */
  completeRepeat(brand: Brand, existing: ExistingConversion, input: ConversionInput, rewardOptions: NewRewardOptions): Promise<ConversionView>;
  /** The claim a redeemed referral discount code stands for (claimForRedemption). */
  redemptionClaim(brand: Brand, owner: ReferralCodeOwner, order: ConversionInput & { email: string }, source: string, money: ConversionMoney): Promise<ClaimRecord>;
  /** What the fraud rules need from the database for this order of `advocateId`. */
  fraudSignals(brand: Brand, input: ConversionInput, advocateId: number): Promise<FraudSignals>;
  /** Writes the conversion (its lines, reward, review and claim with it); undefined: another request wrote the order first. */
  insertConversion(conversion: NewConversion): Promise<ExistingConversion | undefined>;
}
