import type { Brand } from '../brands/brand';

/**
 * The link an advocate shares: the brand's store with the code in `ref` (which the storefront's
 * visit tracking reads); on a Shopify store whose codes are provisioned as discounts, Shopify's
 * discount link, which applies the code at checkout and lands on the store with `ref` for the
 * visit. Null while the store's address is not known (emails then give the code).
 */
export function shareLink(brand: Pick<Brand, 'store_url'> & Partial<Pick<Brand, 'share_link_kind'>>, code: string): string | null {
  if (!brand.store_url) return null;
  const store = new URL(brand.store_url.endsWith('/') ? brand.store_url : `${brand.store_url}/`);
  if (brand.share_link_kind === 'shopify_discount') {
    const landing = `/?ref=${encodeURIComponent(code)}`;
    return `${store.origin}/discount/${encodeURIComponent(code)}?redirect=${encodeURIComponent(landing)}`;
  }
  store.searchParams.set('ref', code);
  return store.toString();
}
