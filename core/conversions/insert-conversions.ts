import { issueApproved } from '../rewards/issue-rewards';
import type { Knex } from 'knex';
import { normalizeEmail } from '../advocates/normalize';
import type { Brand } from '../brands/brand';
import { markClaimsConvertedBy } from '../claims/claim-records';
import { statementOnce } from '../db/prepared-statement';
import { canonicalIp } from '../fraud/client-ip';
import type { FraudReason } from '../fraud/fraud-rules';
import { openReviews } from '../fraud/review-hold';
import type { ReviewSummary } from '../fraud/reviews';
import { creditNewRewards } from '../ledger/reward-ledger';
import { queueRewardMail } from '../mail/enqueue-mail';
import { type Minor, convertShare, decimalFromMinor, minorFromDecimal, percentOf, toMinor } from '../money';
import { insertNewRewards } from '../rewards/reward-records';
import type { RewardStatus } from '../rewards/reward-status';
import type { ConversionInput } from './conversion-input';
import type { ConversionMoney } from './conversion-money';
import type { Attribution, ExistingConversion } from './conversion-records';
import { CONVERSION_VIEW_COLUMNS, type ConversionRow } from './conversion-view';

/** A paid order decided and not yet written: everything its row, lines, reward, review and claim need. */
export interface NewConversion {
  brand: Brand;
  input: ConversionInput;
  attribution: Attribution;
  money: ConversionMoney;
  /** The status its reward starts in (in_review when the caller or the fraud rules hold it). */
  rewardStatus: RewardStatus;
  /** What the fraud rules found; any: a review is opened. */
  reasons: FraudReason[];
}

/** What the statement returns per row: the conversion with the id of the review opened for it (null: none). */
type InsertedRow = ConversionRow & { item: number; review_id: string | null };

/** The columns of a new conversions row, in the order the statement's record lists them. */
const CONVERSION_COLUMNS: Array<[column: string, type: string]> = [
  ['brand_id', 'uuid'], ['order_id', 'text'], ['content_hash', 'text'], ['advocate_id', 'bigint'], ['claim_id', 'bigint'],
  ['referral_code', 'text'], ['visitor_id', 'text'], ['customer_id', 'text'], ['customer_ip', 'inet'], ['email', 'text'],
  ['email_normalized', 'text'], ['customer_name', 'text'], ['type', 'text'], ['status', 'text'], ['order_value', 'numeric'],
  ['order_subtotal', 'numeric'], ['discount_applied', 'numeric'], ['total_discount', 'numeric'], ['discount_value', 'numeric'],
  ['discount_type', 'text'], ['referrer_reward_paid', 'numeric'], ['referee_reward_paid', 'numeric'], ['currency', 'text'],
  ['exchange_rate', 'numeric'], ['source', 'text'], ['coupons_applied', 'jsonb'], ['metadata', 'jsonb'],
];

const COLUMN_NAMES = CONVERSION_COLUMNS.map(([column]) => column).join(', ');

/**
 * One statement for a whole batch of new conversions (docs/development/decisions.md, *One statement per
 * batch*): the rows come in as one JSON array; each inserted row gets its product lines, its
 * reward, the reward's ledger entry and the advocate's email (when completed), its review (when
 * the rules gave reasons) and its claim marked converted. ON CONFLICT DO NOTHING: a row another request wrote first comes
 * back as no row, so its order gets no lines, credit or claim change here. The text never changes:
 * knex compiles it once per process, and each pooled connection plans it once.
 */
const INSERT_SQL = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset(?::jsonb) AS input(
    item int, ${CONVERSION_COLUMNS.map(([column, type]) => `${column} ${type}`).join(', ')},
    reward_status text, hold_days int, reasons jsonb, lines jsonb)
),
inserted AS (
  INSERT INTO conversions (${COLUMN_NAMES})
  SELECT ${COLUMN_NAMES} FROM input ORDER BY item
  ON CONFLICT (brand_id, order_id) DO NOTHING
  RETURNING brand_id, content_hash, ${CONVERSION_VIEW_COLUMNS.join(', ')}
),
conversion AS (
  SELECT inserted.*, input.item, input.reward_status, input.hold_days, input.reasons, input.lines
  FROM inserted JOIN input ON input.brand_id = inserted.brand_id
    AND input.order_id IS NOT DISTINCT FROM inserted.order_id AND input.content_hash IS NOT DISTINCT FROM inserted.content_hash
),
lines AS (
  INSERT INTO conversion_products (brand_id, conversion_id, line_no, name, quantity, price, line_total, sku, attributes)
  SELECT conversion.brand_id, conversion.conversion_id, line.line_no, line.name, line.quantity, line.price, line.line_total, line.sku, line.attributes
  FROM conversion, jsonb_to_recordset(conversion.lines)
    AS line(line_no integer, name text, quantity integer, price numeric, line_total numeric, sku text, attributes jsonb)
),
reward AS (?),
credit AS (?),
mail AS (?),
review AS (?),
claim AS (?)
SELECT conversion.item, ${CONVERSION_VIEW_COLUMNS.map((column) => `conversion.${column}`).join(', ')}, review.review_id
FROM conversion LEFT JOIN review ON review.brand_id = conversion.brand_id AND review.conversion_id = conversion.conversion_id`;

const insertStatement = statementOnce(1, (db, [records]) =>
  db.raw(INSERT_SQL, [
    records!, insertNewRewards(db, 'conversion'), creditNewRewards(db, 'reward'), queueRewardMail(db, 'reward'), openReviews(db, 'conversion'), markClaimsConvertedBy(db, 'conversion'),
  ]),
);

/**
 * Writes the conversions, answering each by position: its row with the review opened for it, or
 * undefined when another request recorded the order first (a lost race). At most one row per
 * order (by order id, or content hash without one) per call: the caller writes a repeat after its first.
 */
export async function insertConversions(trx: Knex.Transaction, conversions: NewConversion[]): Promise<Array<ExistingConversion | undefined>> {
  if (conversions.length === 0) return [];
  const records = conversions.map((conversion, item) => ({ item, ...conversionRecord(conversion) }));
  const { rows } = await insertStatement(trx, [JSON.stringify(records)]);
  const byItem = new Map((rows as InsertedRow[]).map(({ item, ...row }) => [item, row]));
  // A reward approved at once (no hold) is spendable now: a coupon brand issues it in this transaction.
  await issueApproved(trx, conversions.flatMap(({ brand, attribution, rewardStatus }, item) => (byItem.has(item) && rewardStatus === 'approved' ? [{ brand, advocateId: attribution.advocate_id }] : [])));
  return conversions.map(({ reasons }, item) => {
    const inserted = byItem.get(item);
    if (!inserted) return undefined;
    const { review_id, ...row } = inserted;
    const review: ReviewSummary | null = review_id === null ? null : { review_id: Number(review_id), status: 'open', reasons };
    return { ...row, review };
  });
}

/** The statement's record of one new conversion: its row, its reward's start and its review's reasons and lines. */
function conversionRecord({ brand, input, attribution, money, rewardStatus, reasons }: NewConversion) {
  const decimal = (minor: Minor) => decimalFromMinor(minor, money.currency.exponent);
  const optional = (minor: Minor | null) => (minor === null ? null : decimal(minor));
  // A claim's discount is in the brand's currency: it stands in for an order in that currency only.
  const claimDiscount = attribution.claim && money.rate === null ? minorFromDecimal(attribution.claim.discount_applied, money.currency.exponent) : 0;
  const discountApplied = money.discount_applied ?? (money.coupon_discount > 0 ? money.coupon_discount : claimDiscount);
  const totalDiscount = money.total_discount ?? discountApplied;
  return {
    brand_id: brand.brand_id,
    order_id: input.order_id,
    content_hash: input.order_id === null ? (input.content_hash ?? null) : null,
    advocate_id: attribution.advocate_id,
    claim_id: attribution.claim?.claim_id ?? null,
    referral_code: attribution.referral_code,
    visitor_id: input.visitor_id ?? null,
    customer_id: input.customer_id ?? null,
    customer_ip: canonicalIp(input.customer_ip),
    email: input.email?.trim() ?? null,
    email_normalized: input.email === null ? null : normalizeEmail(input.email),
    customer_name: input.customer_name ?? null,
    type: input.type,
    status: input.status,
    order_value: decimal(money.order_value),
    order_subtotal: decimal(money.order_subtotal ?? money.order_value),
    discount_applied: decimal(discountApplied),
    total_discount: decimal(totalDiscount),
    discount_value: input.discount_value ?? null,
    discount_type: input.discount_type ?? null,
    referrer_reward_paid: decimalFromMinor(referrerReward(brand, input, attribution, money), money.brandCurrency.exponent),
    referee_reward_paid: optional(money.referee_reward_paid),
    currency: money.currency.code,
    exchange_rate: money.rate?.text ?? null,
    source: input.source ?? null,
    coupons_applied: input.coupons_applied,
    metadata: { ...input.metadata, attributed_via: attribution.via },
    reward_status: rewardStatus,
    hold_days: brand.reward_hold_days,
    reasons,
    lines: productRows(input, money),
  };
}

/**
 * The advocate's reward, in the brand's currency: a fixed reward is; a percentage is taken of the
 * order in its own currency and converted at the caller's rate, rounded once (half up).
 */
function referrerReward(brand: Brand, input: ConversionInput, attribution: Attribution, money: ConversionMoney): Minor {
  if (money.referrer_reward_paid != null) return money.referrer_reward_paid;
  // An advocate spending their own reward, or a customer using their own code, earns nothing.
  if (input.type === 'advocate') return 0;
  if (input.email !== null && attribution.advocate_email_normalized === normalizeEmail(input.email)) return 0;
  if (brand.reward_type !== 'percentage') return toMinor(brand.reward_value, money.brandCurrency.exponent);
  if (money.rate === null) return percentOf(money.order_value, brand.reward_value);
  return convertShare(money.order_value, money.currency.exponent, money.rate, money.brandCurrency.exponent, brand.reward_value);
}

function productRows(input: ConversionInput, money: ConversionMoney) {
  return input.products.map((line, index) => {
    const { price, line_total } = money.lines[index]!;
    return {
      line_no: index + 1,
      name: line.name,
      quantity: line.quantity,
      price: decimalFromMinor(price, money.currency.exponent),
      line_total: decimalFromMinor(line_total, money.currency.exponent),
      sku: line.sku ?? null,
      attributes: line.attributes,
    };
  });
}
