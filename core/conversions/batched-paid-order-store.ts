import type { Knex } from 'knex';
import type { ReferralCodeOwner } from '../advocates/advocates';
import type { Brand } from '../brands/brand';
import type { ClaimRecord } from '../claims/claim-records';
import { claimForRedemption } from '../claims/redemption-claim';
import { type FraudSignals, NO_SIGNALS } from '../fraud/fraud-rules';
import { fraudSignals } from '../fraud/fraud-signals';
import { needsSignals, screenedOrder } from '../fraud/screen-conversion';
import type { NewRewardOptions } from '../rewards/reward-records';
import type { ConversionInput } from './conversion-input';
import type { ConversionMoney } from './conversion-money';
import { type ExistingConversion, completeIfPending, findExistingConversion } from './conversion-records';
import type { ConversionView } from './conversion-view';
import { convertPaidOrder } from './convert-paid-order';
import { type NewConversion, insertConversions } from './insert-conversions';
import type { PaidOrderBatch } from './paid-order-batch';
import type { PaidOrder, PaidOrderResult, PaidOrderStore } from './paid-order';

/** A new conversion held back for the batch's statement, and the order (by position) waiting for it. */
interface Held {
  conversion: NewConversion;
  order: number;
  written: (row: ExistingConversion | undefined) => void;
}

/**
 * The store of one batch of paid orders (docs/development/decisions.md, *One statement per batch*): the
 * orders run one after another, answered from the batch's look-ups (PaidOrderBatch) where they
 * can be; each new conversion is held back, its order waiting, until the batch's next read of
 * the database or its end, when the held ones are written in one statement and their orders
 * finish in turn. So every order sees the database as if those before it had been written alone.
 */
export class BatchedPaidOrderStore implements PaidOrderStore {
  private held: Held[] = [];
  private readonly answers: Array<Promise<PaidOrderResult>> = [];
  /** The position of the order running now, and how it tells run() that it waits for the batch's statement. */
  private running = -1;
  private parked: () => void = () => {};

  constructor(
    private readonly trx: Knex.Transaction,
    private readonly lookups: PaidOrderBatch,
  ) {}

  /** Runs the use case on one order until it is answered or its conversion is held back; the next order starts after. */
  async run(order: PaidOrder): Promise<void> {
    const held = new Promise<void>((resolve) => (this.parked = resolve));
    this.running = this.answers.length;
    const answer = convertPaidOrder(this.trx, order, this);
    this.answers.push(answer);
    await Promise.race([answer, held]);
  }

  /** Every order's answer, in order, once the conversions still held back are written. */
  async answered(): Promise<PaidOrderResult[]> {
    await this.writeHeld();
    return Promise.all(this.answers);
  }

  codeOwner(brandId: string, code: string): ReferralCodeOwner | undefined {
    return this.lookups.codeOwner(brandId, code);
  }

  namedClaim(brandId: string, claimId: number): ClaimRecord | undefined {
    return this.lookups.namedClaim(brandId, claimId);
  }

  pendingClaim(brandId: string, emailNormalized: string, advocateId?: number): ClaimRecord | null {
    return this.lookups.pendingClaim(brandId, emailNormalized, advocateId);
  }

  async existingConversion(brandId: string, input: ConversionInput): Promise<ExistingConversion | undefined> {
    if (input.order_id === null) {
      // Found by its content: only the database can tell.
      await this.writeHeld();
      return findExistingConversion(this.trx, brandId, input);
    }
    const orderId = input.order_id;
    // The same order held back: it is this one's duplicate once written.
    if (this.held.some(({ conversion }) => conversion.brand.brand_id === brandId && conversion.input.order_id === orderId)) await this.writeHeld();
    return this.lookups.knownConversion(brandId, orderId);
  }

  async completeRepeat(brand: Brand, existing: ExistingConversion, input: ConversionInput, rewardOptions: NewRewardOptions): Promise<ConversionView> {
    await this.writeHeld();
    const conversion = await completeIfPending(this.trx, brand, existing, input, rewardOptions);
    this.lookups.answeredRepeat(brand.brand_id, existing, conversion.status);
    return conversion;
  }

  async redemptionClaim(brand: Brand, owner: ReferralCodeOwner, order: ConversionInput & { email: string }, source: string, money: ConversionMoney): Promise<ClaimRecord> {
    // The claim reused or created must see the claims the orders held back convert.
    await this.writeHeld();
    return claimForRedemption(this.trx, brand, owner, order, source, money);
  }

  async fraudSignals(brand: Brand, input: ConversionInput, advocateId: number): Promise<FraudSignals> {
    if (!needsSignals(brand, input)) return NO_SIGNALS;
    const known = this.lookups.knownSignals(brand, input, advocateId);
    if (known) return known;
    await this.writeHeld();
    const [alone] = await fraudSignals(this.trx, [{ brandId: brand.brand_id, brand, advocateId, order: screenedOrder(input) }]);
    return alone!;
  }

  /** Held back until the batch next reads the database (or ends); the order running now waits, and the next one starts. */
  insertConversion(conversion: NewConversion): Promise<ExistingConversion | undefined> {
    const { brand, input, attribution } = conversion;
    this.lookups.decided(brand.brand_id, input, attribution.advocate_id, attribution.claim);
    return new Promise((written) => {
      this.held.push({ conversion, order: this.running, written });
      this.parked();
    });
  }

  /** Writes the conversions held back in one statement; each one's order then finishes (its events) before the next's. */
  private async writeHeld(): Promise<void> {
    if (this.held.length === 0) return;
    const writing = this.held;
    this.held = [];
    const rows = await insertConversions(this.trx, writing.map(({ conversion }) => conversion));
    for (const [position, { conversion, order, written }] of writing.entries()) {
      const row = rows[position];
      if (row) this.lookups.wrote(conversion.brand.brand_id, conversion.input, row);
      written(row);
      await this.answers[order];
    }
  }
}
