import type { Brand } from '../brands/brand';

/**
 * The link an advocate shares: the brand's store with the code in `ref` (which the storefront's
 * visit tracking reads); null while the store's address is not known (emails then give the code).
 */
export function shareLink(brand: Pick<Brand, 'store_url'>, code: string): string | null {
  if (!brand.store_url) return null;
  const url = new URL(brand.store_url.endsWith('/') ? brand.store_url : `${brand.store_url}/`);
  url.searchParams.set('ref', code);
  return url.toString();
}
