import { HttpError, type Middleware, UUID_PATTERN, brandSignedBy } from '../../server/http';

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

  ctx.state.brand = await brandSignedBy(ctx, brandId, signature, [ctx.state.rawBody ?? Buffer.alloc(0)]);
  return next();
};
