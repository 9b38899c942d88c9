import { createHmac, randomUUID } from 'node:crypto';

/**
 * A Shopify session token as App Bridge hands one to an embedded app: a JWT, HS256, signed with
 * the app's secret, for the app's API key (aud), naming the shop (dest) and its admin (iss).
 */
export function shopifySessionToken(input: { shop: string; apiKey: string; apiSecret: string; expiresInSeconds?: number }): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'HS256', typ: 'JWT' };
  const payload = {
    iss: `https://${input.shop}/admin`,
    dest: `https://${input.shop}`,
    aud: input.apiKey,
    sub: '42',
    exp: now + (input.expiresInSeconds ?? 60),
    nbf: now - 1,
    iat: now - 1,
    jti: randomUUID(),
    sid: randomUUID(),
  };
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const unsigned = `${encode(header)}.${encode(payload)}`;
  return `${unsigned}.${createHmac('sha256', input.apiSecret).update(unsigned).digest('base64url')}`;
}
