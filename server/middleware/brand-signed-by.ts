import { activeKeySecrets } from '../../core/brands/api-keys';
import { type Brand, findBrand } from '../../core/brands/brand';
import { assertBrandActive } from '../../core/brands/brand-status';
import { signatureMatches } from '../../core/brands/verify-signature';
import type { Ctx } from '../app-context';
import { HttpError } from '../http-error';

/**
 * The brand one of whose active API keys signed one of these payloads (hex HMAC-SHA256), for the
 * signed channels (/convert, Medusa deliveries). Bad signature → 401; an inactive brand → 403.
 */
export async function brandSignedBy(ctx: Ctx, brandId: string, signature: string, payloads: Buffer[]): Promise<Brand> {
  const { db, config } = ctx.app.context.deps;
  const brand = await findBrand(db, brandId.toLowerCase());
  const secrets = brand ? await activeKeySecrets(db, brand.brand_id, config.keyEncryptionSecret) : [];
  // An unknown brand has no keys: the same answer as a wrong signature, so brand IDs cannot be probed.
  if (!brand || !signatureMatches(signature, payloads, secrets)) {
    throw new HttpError(401, 'X-AL-Signature does not match the request body under any active key of this brand');
  }
  assertBrandActive(brand);
  return brand;
}
