/**
 * Tells whoever caches a brand in this process (the API-key cache) that its keys or settings
 * changed, so the change applies at once here; other processes see it when their cache expires.
 */
type BrandChangeListener = (brandId: string) => void;

const listeners = new Set<BrandChangeListener>();

export function onBrandChanged(listener: BrandChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function brandChanged(brandId: string): void {
  for (const listener of listeners) listener(brandId);
}
