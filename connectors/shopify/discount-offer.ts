import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { Invalid } from '../../core/errors';
import type { Brand } from '../../core/brands/brand';
import { currencyExponent } from '../../core/currency';
import { decimalFromMinor, toMinor } from '../../core/money';

/** The friend's offer as Shopify code-discount input (docs/merchants/shopify-discounts.md, "The offer in Shopify's terms"). */
export interface ShopifyOffer {
  kind: 'basic' | 'free_shipping';
  /** The input without `code` and `startsAt`, which only a creation sends. */
  input: Record<string, unknown>;
  /** Of `kind` and `input`: what was last written is compared with it. */
  hash: string;
}

/** A brand's offer a basic code discount cannot express: the reason, for the merchant. */
export function offerRefusal(brand: Pick<Brand, 'referee_discount_type' | 'referee_discount_cap'>): string | null {
  if (brand.referee_discount_type === 'percentage' && brand.referee_discount_cap !== null) {
    return "Shopify's code discounts cannot cap a percentage off: remove the largest-discount cap, or offer a fixed amount instead.";
  }
  return null;
}

const amount = (value: number, currency: string) => {
  const exponent = currencyExponent(currency);
  return decimalFromMinor(toMinor(value, exponent), exponent);
};

/**
 * The brand's friend offer as Shopify sees it:
 * - percentage / fixed amount → a basic discount's `customerGets` (a fixed amount once per order,
 *   not per item) on all items; free shipping → a free-shipping discount to every destination;
 * - minimum purchase → `minimumRequirement.subtotal` (none: both minimums cleared, as the admin does);
 * - first purchase only → `appliesOncePerCustomer` (the nearest rule a code discount has without a
 *   customer segment, which would need `write_customers`; the service's eligibility check also
 *   refuses a customer who already used a referral discount);
 * - individual use → `combinesWith` nothing; otherwise it combines with every class.
 * Amounts are in the brand's currency, which an install sets from the shop's.
 */
export function shopifyOffer(brand: Brand): ShopifyOffer {
  const combines = !brand.referee_individual_use;
  const common = {
    title: `${brand.name} referral: friend's offer`,
    context: { all: 'ALL' },
    appliesOncePerCustomer: brand.referee_first_purchase_only,
    combinesWith: { orderDiscounts: combines, productDiscounts: combines, shippingDiscounts: combines },
    minimumRequirement:
      brand.referee_min_purchase === null
        ? { quantity: { greaterThanOrEqualToQuantity: null }, subtotal: { greaterThanOrEqualToSubtotal: null } }
        : { subtotal: { greaterThanOrEqualToSubtotal: amount(brand.referee_min_purchase, brand.currency) } },
  };
  const kind = brand.referee_discount_type === 'free_shipping' ? 'free_shipping' : 'basic';
  const input =
    kind === 'free_shipping'
      ? { ...common, destination: { all: true } }
      : {
          ...common,
          customerGets: {
            items: { all: true },
            value:
              brand.referee_discount_type === 'percentage'
                ? { percentage: brand.referee_discount_value / 100 }
                : { discountAmount: { amount: amount(brand.referee_discount_value, brand.currency), appliesOnEachItem: false } },
          },
        };
  const hash = createHash('sha256').update(JSON.stringify({ kind, input })).digest('hex').slice(0, 32);
  return { kind, input, hash };
}

/** The connector's settings check: a brand linked to a shop keeps an offer Shopify can express. */
export async function checkShopifyOffer(db: Knex, brand: Brand, next: Brand): Promise<void> {
  const refusal = offerRefusal(next);
  if (!refusal) return;
  const linked = await db('shopify_shops').where({ brand_id: brand.brand_id, status: 'installed' }).first('shop_domain');
  if (linked) throw new Invalid(`referee_discount_cap: ${refusal}`);
}
