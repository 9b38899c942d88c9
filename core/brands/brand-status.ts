import { Forbidden } from '../errors';

/** A brand is `uninstalled` when its Shopify app was removed; nothing is recorded for it then. */
export const BRAND_STATUSES = ['active', 'uninstalled'] as const;
export type BrandStatus = (typeof BRAND_STATUSES)[number];

/** The one "brand is active" rule, for every channel that records something for a brand. */
export function assertBrandActive(brand: { status: BrandStatus }): void {
  if (brand.status !== 'active') throw new Forbidden('this brand is not active (the app was uninstalled)');
}
