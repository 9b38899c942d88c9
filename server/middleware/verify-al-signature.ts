import { REPLAY_WINDOW_SECONDS, releaseSignature, spendSignature, timestampIsFresh } from '../../core/brands/replay-guard';
import type { Middleware } from '../app-context';
import { HttpError } from '../http-error';
import { UUID_PATTERN } from './authenticate-api-key';
import { brandSignedBy } from './brand-signed-by';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * POST /api/v1/convert: X-Brand-ID + X-AL-Signature, the hex HMAC-SHA256 of the raw body with any
 * active key of the brand. With X-AL-Timestamp the request must be within 5 minutes of our clock,
 * may sign `{timestamp}.{body}` instead, and its signature is spent: a replay gets 401.
 * An X-API-Key alone is not accepted here. Runs after readRawBody.
 */
export const verifyAlSignature: Middleware = async (ctx, next) => {
  const brandId = ctx.get('x-brand-id');
  const signature = ctx.get('x-al-signature');
  const timestamp = ctx.get('x-al-timestamp');
  if (!brandId) throw new HttpError(401, 'X-Brand-ID header is required');
  if (!signature) throw new HttpError(401, 'X-AL-Signature header is required: /convert is authenticated by signature, not X-API-Key');
  if (!UUID_PATTERN.test(brandId)) throw new HttpError(401, 'X-Brand-ID is not a valid brand ID');
  if (!HEX_SHA256.test(signature.trim())) throw new HttpError(401, 'X-AL-Signature must be a hex HMAC-SHA256 (64 hex characters)');
  if (timestamp && !UNIX_SECONDS.test(timestamp)) throw new HttpError(401, 'X-AL-Timestamp must be a unix timestamp in seconds');
  if (timestamp && !timestampIsFresh(Number(timestamp), Date.now())) {
    throw new HttpError(401, `X-AL-Timestamp is more than ${REPLAY_WINDOW_SECONDS} seconds from the server clock`);
  }

  const { db } = ctx.app.context.deps;
  const rawBody = ctx.state.rawBody ?? Buffer.alloc(0);
  const payloads = timestamp ? [rawBody, Buffer.concat([Buffer.from(`${timestamp}.`), rawBody])] : [rawBody];
  const brand = await brandSignedBy(ctx, brandId, signature, payloads);
  ctx.state.brand = brand;
  if (!timestamp) return next();

  if (!(await spendSignature(db, brand.brand_id, signature, Number(timestamp)))) {
    throw new HttpError(401, 'X-AL-Signature was already used (replay): sign the request again with a new X-AL-Timestamp');
  }
  try {
    await next();
  } catch (error) {
    // A failed request changed nothing, so the sender may retry it exactly as signed.
    await releaseSignature(db, brand.brand_id, signature).catch((releaseError: unknown) =>
      ctx.app.context.deps.logger.warn({ err: releaseError }, 'could not release a /convert signature'),
    );
    throw error;
  }
};
