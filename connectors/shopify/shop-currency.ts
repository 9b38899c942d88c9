import { requireCurrency } from '../../core/currency';
import type { AdminApi } from './admin-api';

/** The shop's currency (shop money): what its orders are counted in, so its brand's currency. */
export const SHOP_CURRENCY_QUERY = `#graphql
  query ShopCurrency { shop { currencyCode } }`;

export async function shopCurrency(api: AdminApi): Promise<string> {
  const { shop } = await api.request<{ shop: { currencyCode: string } }>(SHOP_CURRENCY_QUERY);
  return requireCurrency(shop.currencyCode, 'shop.currencyCode');
}
