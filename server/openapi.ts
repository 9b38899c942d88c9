import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './http-error';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './middleware/json-body';
import { claimRequestSchema } from './schemas/claim-request';
import { conversionAlternateSchema, conversionPrimarySchema } from './schemas/conversion-request';
import { convertRequestSchema } from './schemas/convert-request';
import { eligibilityRequestSchema } from './schemas/eligibility-request';
import { refundRequestSchema } from './schemas/refund-request';
import { advocatePathSchema, approveRewardSchema, listRewardsQuerySchema, rewardPathSchema, voidRewardSchema } from './schemas/reward-request';
import { reviewApproveSchema, reviewListQuerySchema, reviewRejectSchema } from './schemas/review-request';
import { MAX_IDENTIFIER_BYTES, MAX_IDENTIFIER_CHARS, MAX_LINES, MAX_METADATA_BYTES, MAX_STRING } from './schemas/fields';
import { visitRequestSchema } from './schemas/visit-request';
import { deliveryQuerySchema, webhookEndpointRequestSchema } from './schemas/webhook-endpoint-request';
import { mailListQuerySchema, templatePatchSchema, templateTextSchema } from './schemas/mail-request';
import { MAIL_TEMPLATES } from '../core/mail/mail-templates';
import { rewardBalanceSchema } from '../core/ledger/reward-balance';
import { addCodeSchema, advocateByEmailQuerySchema, createAdvocateSchema, joinAdvocateSchema, listAdvocatesQuerySchema, updateAdvocateSchema } from './schemas/advocate-request';
import { brandPatchSchema, createApiKeySchema, markPaidSchema, payoutsQuerySchema } from './schemas/program-request';

/** The request body as JSON Schema, derived from the zod schema that parses it (never hand-written). */
function body(schema: z.ZodType) {
  return { required: true, content: { 'application/json': { schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) } } };
}

const envelope = { description: 'Success envelope `{success: true, data}`' };

/** A success answer whose `data` has a zod schema: its JSON Schema, derived (never hand-written). */
function answered(description: string, data: z.ZodType) {
  const schema = z.toJSONSchema(z.object({ success: z.literal(true), data }), { io: 'output', unrepresentable: 'any' });
  return { description, content: { 'application/json': { schema } } };
}

const LIMITS =
  `Limits: a body is one JSON object of at most ${MAX_BODY_BYTES} bytes (413 beyond), nested at most ${MAX_JSON_DEPTH} levels; ` +
  `identifiers (referral codes, emails, order, refund and visitor ids, coupon codes) at most ${MAX_IDENTIFIER_CHARS} characters ` +
  `and ${MAX_IDENTIFIER_BYTES} bytes of UTF-8; other strings at most ${MAX_STRING} characters; at most ${MAX_LINES} products, ` +
  `items or coupons; metadata at most ${MAX_METADATA_BYTES} bytes of JSON; amounts are JSON numbers >= 0 with at most 2 decimals. ` +
  'Anything beyond is a 400 naming the field.';

const errorBody = { $ref: '#/components/schemas/Error' };

/** Answered only by the Shopify install routes, never by /api/v1. */
const NOT_FROM_THE_API: ReadonlySet<ErrorCode> = new Set(['upstream_error', 'service_unavailable']);

/** One response per status of the error codes: every code that status can carry, with its meaning. */
function errorResponses(): Record<string, object> {
  const byStatus: Record<string, string[]> = {};
  for (const [code, { status, meaning }] of Object.entries(ERROR_CODES)) {
    if (NOT_FROM_THE_API.has(code as ErrorCode)) continue;
    (byStatus[String(status)] ??= []).push(`\`${code}\`: ${meaning}`);
  }
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, lines]) => [status, { description: lines.join('; '), content: { 'application/json': { schema: errorBody } } }]),
  );
}
const errors = errorResponses();
const apiKey = [{ apiKey: [], brandId: [] }];

function post(summary: string, requestBody: object, responses: Record<string, object>, security: object[] = apiKey) {
  return { post: { summary, security, requestBody, responses: { ...errors, ...responses } } };
}

/** Path or query parameters, each property of the zod object schema as one parameter. */
function parameters(schema: z.ZodObject, where: 'path' | 'query') {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, object>; required?: string[] };
  return Object.entries(json.properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
  }));
}

const rewardPath = parameters(rewardPathSchema, 'path');
const rewardEnvelope = { description: 'Success envelope `{success: true, data}`: the reward (status, amount, hold_until, approved_at, voided_at, void_reason, paid_amount)' };
const transition = (summary: string, schema: z.ZodType) => ({
  post: { summary, security: apiKey, parameters: rewardPath, requestBody: body(schema), responses: { ...errors, '200': rewardEnvelope } },
});
/** POST /api/v1/reviews/{id}/approve|reject: the review's decision (docs/merchants/fraud-review.md). */
function decide(summary: string, requestBody: object) {
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
  const decided = { '200': { description: '`{review, reward_credited}`' }, '409': { description: 'Already decided, with review_status' } };
  return { post: { ...post(summary, requestBody, decided).post, parameters: [id] } };
}

/** An operation without a request body; `parameters` from the path (and a query schema). */
function operation(summary: string, responses: Record<string, object>, parameters: object[] = []) {
  return { summary, security: apiKey, parameters, responses: { ...errors, ...responses } };
}
const pathId = (description: string) => ({ name: 'id', in: 'path', required: true, description, schema: { type: 'string' } });
const endpointId = pathId('Webhook endpoint id (`ep_…`)');

/** Outbound webhook endpoints and their delivery log (docs/api/webhooks.md). */
function webhookPaths() {
  return {
    '/api/v1/webhook-endpoints': {
      ...post('Register a webhook endpoint; the signing secret (`whsec_…`) is in this answer only', body(webhookEndpointRequestSchema), { '201': envelope }),
      get: operation('List the brand\'s webhook endpoints, with status and disabled_reason', { '200': envelope }),
    },
    '/api/v1/webhook-endpoints/{id}': {
      get: operation('One webhook endpoint', { '200': envelope }, [endpointId]),
      delete: operation('Remove a webhook endpoint and its delivery log', { '200': envelope }, [endpointId]),
    },
    '/api/v1/webhook-endpoints/{id}/enable': { post: operation('Re-enable a disabled endpoint', { '200': envelope }, [endpointId]) },
    '/api/v1/webhook-endpoints/{id}/test': { post: operation('Send a `webhook.test` event now, once; answers the delivery as it ended', { '200': envelope }, [endpointId]) },
    '/api/v1/webhook-endpoints/{id}/deliveries': {
      get: operation('The endpoint\'s deliveries, newest first', { '200': envelope }, [endpointId, ...parameters(deliveryQuerySchema, 'query')]),
    },
    '/api/v1/webhook-deliveries/{id}/replay': {
      post: operation('Send a delivery\'s event again (same webhook-id) as a new delivery', { '201': envelope }, [pathId('Webhook delivery id')]),
    },
  };
}

/** Program emails: what was sent, and each template's words (docs/merchants/program-emails.md). */
function emailPaths() {
  const template = { name: 'template', in: 'path', required: true, schema: { type: 'string', enum: [...MAIL_TEMPLATES] } };
  return {
    '/api/v1/emails': {
      get: operation('The brand\'s program emails, newest first: template, recipient, status (queued, sending, sent, failed, suppressed), last_error', { '200': envelope }, parameters(mailListQuerySchema, 'query')),
    },
    '/api/v1/email-templates': {
      get: operation('Each template: enabled, subject, body (the brand\'s own words or the default in its language), its placeholders, who changed it last', { '200': envelope }),
    },
    '/api/v1/email-templates/{template}': {
      put: { ...operation('Save the brand\'s own subject and body; an unknown {{placeholder}} is a 400 naming it', { '200': envelope }, [template]), requestBody: body(templateTextSchema) },
      patch: { ...operation('Switch the email on or off (`enabled`) and/or change its subject or body alone', { '200': envelope }, [template]), requestBody: body(templatePatchSchema) },
      delete: operation('Back to the default words in the brand\'s language', { '200': envelope }, [template]),
    },
  };
}

/** The merchant's program over REST: advocates, settings, payouts and keys (issue 29). */
function programPaths() {
  const advocateId = parameters(advocatePathSchema, 'path');
  return {
    '/api/v1/advocates': {
      ...post('Enrol an advocate: 201 with their code and share_link; the welcome email is queued; 409 (with advocate_id) when the email is taken', body(createAdvocateSchema), { '201': envelope }),
      get: operation('The brand\'s advocates in the order they joined; q searches email, name or code; status keeps active or deactivated ones; updated_since (ISO timestamp) keeps those whose details, codes or status changed at or after it (each answer has updated_at); has_more and next_cursor page', { '200': envelope }, parameters(listAdvocatesQuerySchema, 'query')),
    },
    '/api/v1/advocates/join': {
      ...post(
        'A shopper joins from the store. With the publishable key (pk_…, from the brand\'s allowed_origins; CORS; 20 an hour per IP, RATE_LIMIT_JOIN): 202 {status: "check_your_email"} for any address, new, an advocate\'s or a deactivated one; the code goes to the address (the welcome email, or advocate_link_again at most once a day; nothing for a deactivated advocate), and a name with a web or email address or a line break is a 400. With the secret key (the store\'s backend): 201 with first_name, referral_code and share_link, the welcome email queued; 200 with the same for an address that already joined (never their figures); 409 for a deactivated advocate',
        body(joinAdvocateSchema),
        { '202': envelope, '201': envelope, '200': envelope },
      ),
    },
    '/api/v1/advocates/by-email': {
      get: operation(
        'One advocate found by email (any case), with their figures: the advocate (codes, share_link, status), friends_referred (their referral conversions, refunded ones left out) and rewards {currency, held, approved, paid, owed} (approved never below zero: what refunds took back beyond it is owed) and reward_codes [{issue_id, method: code | store_credit, code (null for store credit), amount, currency, state: on_its_way | ready | used | withdrawn | expired, created_at, issued_at}] (the single-use codes and store credits a coupon or store_credit brand handed them, newest first) — for a platform backend showing its logged-in customer their own page; 404 when the address never joined (all plans)',
        { '200': envelope },
        parameters(advocateByEmailQuerySchema, 'query'),
      ),
    },
    '/api/v1/advocates/{id}': {
      get: operation('One advocate, with codes, share_link, status and deactivated_at', { '200': envelope }, advocateId),
      patch: { ...operation('Correct an advocate\'s name or email; a taken email is a 409 with advocate_id', { '200': envelope }, advocateId), requestBody: body(updateAdvocateSchema) },
    },
    '/api/v1/advocates/{id}/codes': {
      post: { ...operation('Give the advocate another referral code, or map a platform coupon code (kind: coupon) to them; 409 when the code is in use', { '201': envelope }, advocateId), requestBody: body(addCodeSchema) },
    },
    '/api/v1/advocates/{id}/deactivate': {
      post: operation('Deactivate an advocate: their codes resolve as unknown from now on (no new conversion, visit or claim); their history and earned rewards stay; twice changes nothing', { '200': envelope }, advocateId),
    },
    '/api/v1/advocates/{id}/reactivate': {
      post: operation('Reactivate an advocate: their codes attribute new orders again; twice changes nothing', { '200': envelope }, advocateId),
    },
    '/api/v1/brand': {
      get: operation('The brand and its program settings', { '200': envelope }),
      patch: { ...operation('Change program settings (not the plan or currency); a bad value is a 400 naming it', { '200': envelope }), requestBody: body(brandPatchSchema) },
    },
    '/api/v1/payouts': { get: operation('What each advocate may be paid now: payouts [{payout_id, advocate_id, email, code, currency, amount}], count and total; and apart, owed [{advocate_id, email, code, currency, amount}]: what advocates owe from refunded orders (never payable)', { '200': envelope }, parameters(payoutsQuerySchema, 'query')) },
    '/api/v1/payouts/mark-paid': post('Record paid payouts: all or none; a payout_id already recorded is skipped (a retry changes nothing)', body(markPaidSchema), { '200': envelope }),
    '/api/v1/api-keys': {
      ...post('Create an API key: 201 with `api_key`, shown this once', body(createApiKeySchema), { '201': envelope }),
      get: operation('The brand\'s keys (prefix, label, revoked) — never the key', { '200': envelope }),
    },
    '/api/v1/api-keys/{id}': { delete: operation('Revoke a key at once', { '200': envelope }, [pathId('Key id (key_id)')]) },
  };
}

let built: ReturnType<typeof buildOpenApiDocument> | undefined;

/**
 * GET /api/v1/openapi.json: the API as OpenAPI 3.1, generated from the same zod schemas. Built on
 * first request, once per process: converting every schema takes about a third of a second, which
 * a server (or a test's app) need not pay at start.
 */
export function openApiDocument() {
  return (built ??= buildOpenApiDocument());
}

function buildOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: { title: 'Referral tracking API', version: '1', description: LIMITS },
    components: {
      schemas: {
        Error: {
          type: 'object',
          required: ['success', 'error', 'code'],
          properties: {
            success: { const: false },
            error: { type: 'string', description: 'A sentence naming the field or cause' },
            code: { enum: Object.keys(ERROR_CODES) as ErrorCode[], description: 'Stable machine code' },
            claim_id: { type: 'integer', description: 'On a 409 duplicate claim: the existing claim' },
          },
        },
      },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        brandId: { type: 'apiKey', in: 'header', name: 'X-Brand-ID' },
        signature: { type: 'apiKey', in: 'header', name: 'X-AL-Signature' },
      },
    },
    paths: {
      '/api/v1/track/visit': post('Record a click on a referral link (Premier)', body(visitRequestSchema), { '200': envelope }),
      '/api/v1/track/claim': post('Create a pending claim (Premier)', body(claimRequestSchema), { '201': envelope, '409': { description: 'Duplicate within 24 h, with claim_id' } }),
      '/api/v1/track/conversion': post('Record a paid order', body(z.union([conversionPrimarySchema, conversionAlternateSchema])), { '201': envelope, '200': { description: 'Duplicate order_id, or `attributed: false`' } }),
      '/api/v1/track/refund': post('Record a full or partial refund', body(refundRequestSchema), { '200': envelope }),
      '/api/v1/track/check-eligibility': post('May this customer get a referral discount?', body(eligibilityRequestSchema), { '200': { description: '`{eligible: true}` or `{eligible: false, error, message}`' } }),
      '/api/v1/rewards': {
        get: {
          summary: 'List rewards, newest first, by status and advocate (all plans)',
          security: apiKey,
          parameters: parameters(listRewardsQuerySchema, 'query'),
          responses: { ...errors, '200': { description: '`{success: true, data: [reward…], has_more, next_cursor}`; pass next_cursor as cursor for the next page' } },
        },
      },
      '/api/v1/advocates/{id}/balance': {
        get: {
          summary: "An advocate's reward figures in the brand's currency: credited, reversed, redeemed, balance (spendable), pending, approved, paid, issued, voided, payable, owed (all plans)",
          security: apiKey,
          parameters: parameters(advocatePathSchema, 'path'),
          responses: { ...errors, '200': answered('`{success: true, data: {advocate_id, currency, credited, reversed, redeemed, balance, pending, approved, paid, issued, voided, payable, owed}}`', rewardBalanceSchema) },
        },
      },
      '/api/v1/rewards/{id}': {
        get: { summary: 'One reward with its ledger history (all plans)', security: apiKey, parameters: rewardPath, responses: { ...errors, '200': rewardEnvelope } },
      },
      '/api/v1/rewards/{id}/approve': transition('Approve a reward: in review → pending or approved, pending → approved (all plans); 409 when voided or approved', approveRewardSchema),
      '/api/v1/rewards/{id}/void': transition('Void a reward with a reason (all plans); 409 when paid out or already voided', voidRewardSchema),
      ...webhookPaths(),
      ...emailPaths(),
      ...programPaths(),
      '/api/v1/convert': post('Simplified claim from a signed webhook', body(convertRequestSchema), { '201': envelope, '409': { description: 'Duplicate, with claim_id' } }, [{ brandId: [], signature: [] }]),
      '/api/v1/reviews': {
        get: { summary: 'Conversions held for fraud review, oldest first', security: apiKey, parameters: parameters(reviewListQuerySchema, 'query'), responses: { ...errors, '200': { description: '`{reviews, next_after}`' } } },
      },
      '/api/v1/reviews/{id}/approve': decide('Approve a held conversion: its reward is credited', { ...body(reviewApproveSchema), required: false }),
      '/api/v1/reviews/{id}/reject': decide('Reject a held conversion: its reward is never credited', body(reviewRejectSchema)),
    },
  };
}
