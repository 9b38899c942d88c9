import { activeKeySecrets } from '../../core/brands/api-keys';
import { findBrand } from '../../core/brands/brand';
import { signatureMatches } from '../../core/brands/verify-signature';
import type { Middleware } from '../../server/app-context';
import { HttpError } from '../../server/http-error';
import { UUID_PATTERN } from '../../server/middleware/authenticate-api-key';

/**
 * A Medusa plugin delivery: X-Brand-ID + X-AL-Signature, the hex HMAC-SHA256 of the raw body with
 * any active API key of the brand. No timestamp window: the plugin resends the same signed body for
 * as long as the service is down, and a replayed snapshot changes nothing (event id, refund ids).
 * Runs after readRawBody.
 */
export const verifyMedusaDelivery: Middleware = async (ctx, next) => {
  const brandId = ctx.get('x-brand-id');
  const signature = ctx.get('x-al-signature');
  if (!brandId) throw new HttpError(401, 'X-Brand-ID header is required');
  if (!signature) throw new HttpError(401, 'X-AL-Signature header is required');
  if (!UUID_PATTERN.test(brandId)) throw new HttpError(401, 'X-Brand-ID is not a valid brand ID');

  const { db, config } = ctx.app.context.deps;
  const brand = await findBrand(db, brandId.toLowerCase());
  const secrets = brand ? await activeKeySecrets(db, brand.brand_id, config.keyEncryptionSecret) : [];
  // An unknown brand has no keys: the same answer as a wrong signature, so brand IDs cannot be probed.
  if (!brand || !signatureMatches(signature, [ctx.state.rawBody ?? Buffer.alloc(0)], secrets)) {
    throw new HttpError(401, 'X-AL-Signature does not match the body under any active API key of this brand');
  }
  if (brand.status !== 'active') throw new HttpError(403, 'this brand is not active');
  ctx.state.brand = brand;
  return next();
};
