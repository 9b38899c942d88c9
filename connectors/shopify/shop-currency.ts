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
 * The decimals of a shop's currency as far as the mappers' cents can hold them: JPY 0, USD 2; a
 * 3-decimal currency (KWD) is computed in cents (docs/currencies.md). Unknown: 2.
 */
export function shopExponent(code: string | null | undefined): number {
  const known = code ? currencyCode(code) : null;
  return known ? Math.min(2, currencyExponent(known)) : 2;
}
