import { currencyCode, currencyExponent, requireCurrency } from '../../core/currency';
import type { AdminApi } from './admin-api';

/** The shop's currency (shop money): what its orders are counted in, so its brand's currency. */
export const SHOP_CURRENCY_QUERY = `#graphql
  query ShopCurrency { shop { currencyCode } }`;

export async function shopCurrency(api: AdminApi): Promise<string> {
  const { shop } = await api.request<{ shop: { currencyCode: string } }>(SHOP_CURRENCY_QUERY);
  return requireCurrency(shop.currencyCode, 'shop.currencyCode');
}

/**
 * The decimals of a payload's currency (shop or presentment money): JPY 0, USD 2, KWD 3, CLF 4.
 * None or unknown: 2, as Shopify amounts were read before currencies (the core refuses an unknown code).
 */
export function moneyExponent(code: string | null | undefined): number {
  const known = code ? currencyCode(code) : null;
  return known ? currencyExponent(known) : 2;
}
