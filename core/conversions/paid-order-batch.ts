import type { Knex } from 'knex';
import { type ReferralCodeOwner, brandCodeKey, findReferralCodes } from '../advocates/advocates';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { type ClaimRecord, type ClaimsOfOrders, findClaimsOfOrders } from '../claims/claim-records';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { canonicalIp } from '../fraud/client-ip';
import type { FraudSignals } from '../fraud/fraud-rules';
import { type SignalsRequest, fraudSignals } from '../fraud/fraud-signals';
import { needsSignals, screenedOrder } from '../fraud/screen-conversion';
import { ASK_VISITS, type ReferralFacts, namedCodes, referrerFromFacts } from './attribute-conversion';
import type { ConversionInput } from './conversion-input';
import { type ExistingConversion, brandOrderKey, findExistingConversions } from './conversion-records';
import type { ConversionRow } from './conversion-view';
import type { PaidOrder } from './paid-order';

/** The fraud signals of an order depend on its brand, its advocate and what it says of the shopper. */
function signalsKey(brandId: string, advocateId: number, input: ConversionInput): string {
  const { customer_id, visitor_id, ip } = screenedOrder(input);
  return JSON.stringify([brandId, advocateId, customer_id, visitor_id, ip]);
}

const count = (counts: Map<string, number>, key: string) => counts.get(key) ?? 0;

/** The conversions already recorded for the orders that carry an order id, by brandOrderKey. */
export function findConversionsOfOrders(db: Executor, items: PaidOrder[]): Promise<Map<string, ExistingConversion>> {
  return findExistingConversions(
    db,
    items.flatMap(({ brand, order }) => (order.conversion.order_id !== null ? [{ brandId: brand.brand_id, orderId: order.conversion.order_id }] : [])),
  );
}

/**
 * What a batch of paid orders needs from the database, read once for the whole batch (one
 * statement per kind: existing orders, codes, claims, fraud signals), then kept current in memory
 * as its orders are decided, since an earlier order of the batch can change what a later one
 * finds (docs/development/decisions.md, *Look-ups per batch*): its conversion is the later one's duplicate,
 * the claim it linked is no longer pending, it counts toward the advocate's and the IP's velocity.
 * Where memory cannot tell (knownSignals: null), the store reads the database instead
 * (batched-paid-order-store.ts). Memory only: nothing here writes.
 */
export class PaidOrderBatch implements ReferralFacts {
  private readonly linkedClaims = new Set<string>();
  private readonly advocateOrders = new Map<string, number>();
  private readonly ipOrders = new Map<string, number>();
  private readonly customerEmails = new Set<string>();

  private constructor(
    private readonly existing: Map<string, ExistingConversion>,
    private readonly codes: Map<string, ReferralCodeOwner>,
    private readonly claims: ClaimsOfOrders,
    private readonly signals: Map<string, FraudSignals> = new Map(),
  ) {}

  /**
   * The batch's look-ups, in its transaction: at most four statements, whatever its size.
   * `existing`: the orders' conversions, when they were read just before (answerRepeatsAlone).
   */
  static async read(trx: Knex.Transaction, items: PaidOrder[], existing?: Map<string, ExistingConversion>): Promise<PaidOrderBatch> {
    existing ??= await findConversionsOfOrders(trx, items);
    // A repeat is answered from its row: nothing else to read for it.
    const fresh = items.filter(({ brand, order }) => order.conversion.order_id === null || !existing.has(brandOrderKey(brand.brand_id, order.conversion.order_id)));
    const codes = await findReferralCodes(trx, fresh.flatMap(({ brand, order }) => namedCodes(order.conversion, order).map((code) => ({ brandId: brand.brand_id, code }))));
    const claims = await findClaimsOfOrders(trx, {
      named: fresh.flatMap(({ brand, order }) => (order.conversion.claim_id != null ? [{ brandId: brand.brand_id, claimId: order.conversion.claim_id }] : [])),
      customers: fresh.flatMap(({ brand, order }) =>
        order.conversion.claim_id == null && order.conversion.email !== null
          ? [{ brandId: brand.brand_id, emailNormalized: normalizeEmail(order.conversion.email), windowDays: brand.attribution_window_days }]
          : [],
      ),
    });
    const batch = new PaidOrderBatch(existing, codes, claims);
    await batch.readSignals(trx, fresh);
    return batch;
  }

  /** The fraud signals of every order whose advocate the codes and claims already name (a visit's is read when needed). */
  private async readSignals(trx: Knex.Transaction, items: PaidOrder[]): Promise<void> {
    const requests = new Map<string, SignalsRequest>();
    for (const { brand, order } of items) {
      if (!needsSignals(brand, order.conversion)) continue;
      const advocateId = this.advocateOf(brand, order);
      if (advocateId === null) continue;
      const key = signalsKey(brand.brand_id, advocateId, order.conversion);
      requests.set(key, { brandId: brand.brand_id, brand, advocateId, order: screenedOrder(order.conversion) });
    }
    const found = await fraudSignals(trx, [...requests.values()]);
    [...requests.keys()].forEach((key, index) => this.signals.set(key, found[index]!));
  }

  /** The advocate the order would be credited to as the batch starts; null: an error, not a referral, or a visit's. */
  private advocateOf(brand: Brand, order: PaidOrder['order']): number | null {
    try {
      const referrer = referrerFromFacts(this, brand, order.conversion, order);
      if (referrer === null || referrer === ASK_VISITS) return null;
      return 'claim' in referrer ? referrer.claim.advocate_id : referrer.owner.advocate_id;
    } catch (error) {
      // An unknown code or claim: the order's own write answers it.
      if (error instanceof NotFound) return null;
      throw error;
    }
  }

  codeOwner(brandId: string, code: string): ReferralCodeOwner | undefined {
    return this.codes.get(brandCodeKey(brandId, code));
  }

  namedClaim(brandId: string, claimId: number): ClaimRecord | undefined {
    return this.claims.named.get(`${brandId}:${claimId}`);
  }

  pendingClaim(brandId: string, emailNormalized: string, advocateId?: number): ClaimRecord | null {
    const pending = this.claims.pending.get(`${brandId}:${emailNormalized}`) ?? [];
    const open = (claim: ClaimRecord) => !this.linkedClaims.has(`${brandId}:${claim.claim_id}`) && (advocateId === undefined || claim.advocate_id === advocateId);
    return pending.find(open) ?? null;
  }

  /** The conversion the batch knows for this order id (read with the batch, or written or answered since). */
  knownConversion(brandId: string, orderId: string): ExistingConversion | undefined {
    return this.existing.get(brandOrderKey(brandId, orderId));
  }

  /**
   * The rules' signals for this order of `advocateId`, counting the orders the batch decided before
   * it; null when memory cannot tell (an order whose advocate changed, or whose advocate ordered in
   * the batch as a customer): the database must be read, after the batch's earlier orders are written.
   */
  knownSignals(brand: Brand, input: ConversionInput, advocateId: number): FraudSignals | null {
    const brandId = brand.brand_id;
    const read = this.signals.get(signalsKey(brandId, advocateId, input));
    if (!read || this.customerEmails.has(`${brandId}:${read.advocate_email}`)) return null;
    const ip = screenedOrder(input).ip;
    return {
      ...read,
      advocate_last_hour: read.advocate_last_hour + count(this.advocateOrders, `${brandId}:${advocateId}`),
      ip_last_day: read.ip_last_day + (ip === null ? 0 : count(this.ipOrders, `${brandId}:${ip}`)),
    };
  }

  /**
   * A new conversion was decided (it is written now or with the orders held back): a later order
   * of the batch finds its claim linked and counts it toward the advocate's and the IP's velocity.
   */
  decided(brandId: string, input: ConversionInput, advocateId: number, claim: ClaimRecord | null): void {
    if (claim) this.linkedClaims.add(`${brandId}:${claim.claim_id}`);
    const advocate = `${brandId}:${advocateId}`;
    this.advocateOrders.set(advocate, count(this.advocateOrders, advocate) + 1);
    const ip = canonicalIp(input.customer_ip);
    if (ip !== null) this.ipOrders.set(`${brandId}:${ip}`, count(this.ipOrders, `${brandId}:${ip}`) + 1);
    if (input.email !== null) this.customerEmails.add(`${brandId}:${normalizeEmail(input.email)}`);
  }

  /** A new conversion was written: a later repeat of its order is answered from it. */
  wrote(brandId: string, input: ConversionInput, row: ExistingConversion): void {
    if (input.order_id !== null) this.existing.set(brandOrderKey(brandId, input.order_id), row);
  }

  /** A repeat was answered (a pending one perhaps completed, a lost race's winner found): a later repeat sees it as it is now. */
  answeredRepeat(brandId: string, row: ExistingConversion, status: ConversionRow['status']): void {
    if (row.order_id !== null) this.existing.set(brandOrderKey(brandId, row.order_id), { ...row, status });
  }
}
