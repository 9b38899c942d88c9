/**
 * Every error answer's body is `{success: false, error: <human message>, code: <one of these>}`.
 * The one list of codes: the error middleware, the OpenAPI document and docs/api/rest.md
 * (its errors table, checked by test/docs/openapi-docs.test.ts) use it.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, meaning: 'A field is missing or invalid (named in `error`), or the body is not a JSON object' },
  unauthorized: { status: 401, meaning: 'Missing X-API-Key/X-Brand-ID, unknown or revoked key, or a bad or replayed signature' },
  session_required: { status: 401, meaning: 'Dashboard: no live session (sign in with `referrals dashboard login`) or a bad Shopify session token' },
  forbidden: { status: 403, meaning: 'The key belongs to another brand, or the brand is not active' },
  https_required: { status: 403, meaning: 'The request came over plain HTTP' },
  plan_required: { status: 403, meaning: "The endpoint needs a higher plan than the brand's" },
  login_link_refused: { status: 403, meaning: 'Dashboard: the sign-in link was already used, expired or never issued' },
  csrf_rejected: { status: 403, meaning: "Dashboard: a form was posted without its session's CSRF token, or the sign-in from another site" },
  key_type_refused: { status: 403, meaning: 'A publishable key (pk_…) was sent to a route that needs the secret key (rk_…)' },
  role_required: { status: 403, meaning: "Dashboard: the signed-in user's role (viewer, admin) may not make this change" },
  not_found: { status: 404, meaning: 'Referral code, record or route not found' },
  method_not_allowed: { status: 405, meaning: 'The route exists for another method' },
  conflict: { status: 409, meaning: 'Duplicate (a claim within 24 hours: `claim_id` names the existing one), a reward transition its status does not allow (voiding a paid or voided reward, approving a voided one), or a fraud review already decided (`review_status`)' },
  payload_too_large: { status: 413, meaning: 'The body is over 1 MiB' },
  unprocessable: { status: 422, meaning: 'Well-formed but not doable as asked (the field is named in `error`)' },
  exchange_rate_required: { status: 422, meaning: "An amount in another currency than the brand's came without `exchange_rate`" },
  currency_mismatch: { status: 422, meaning: "A refund names another currency than its order's, or a claim another than the brand's" },
  rate_limited: { status: 429, meaning: 'Too many requests from one IP: retry after `Retry-After` seconds' },
  internal_error: { status: 500, meaning: 'A bug on our side: retrying the same request will not help' },
  upstream_error: { status: 502, meaning: 'A platform we called (Shopify) refused or failed' },
  service_unavailable: { status: 503, meaning: 'A part of the service is not configured' },
  database_unavailable: { status: 503, meaning: 'The database cannot be reached: retry after `Retry-After` seconds' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The code of an answer that names none: the first code listed for its status. */
export function defaultErrorCode(status: number): ErrorCode {
  const listed = (Object.keys(ERROR_CODES) as ErrorCode[]).find((code) => ERROR_CODES[code].status === status);
  return listed ?? (status >= 500 ? 'internal_error' : 'invalid_request');
}

/** An HTTP-level refusal (bad JSON, missing auth headers, body too large): status + message. */
export class HttpError extends Error {
  readonly code: ErrorCode;

  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    code?: ErrorCode,
  ) {
    super(message);
    this.code = code ?? defaultErrorCode(status);
  }
}
