import { z } from 'zod';
import { claimRequestSchema } from './schemas/claim-request';
import { conversionAlternateSchema, conversionPrimarySchema } from './schemas/conversion-request';
import { convertRequestSchema } from './schemas/convert-request';
import { eligibilityRequestSchema } from './schemas/eligibility-request';
import { refundRequestSchema } from './schemas/refund-request';
import { visitRequestSchema } from './schemas/visit-request';

/** The request body as JSON Schema, derived from the zod schema that parses it (never hand-written). */
function body(schema: z.ZodType) {
  return { required: true, content: { 'application/json': { schema: z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) } } };
}

const envelope = { description: 'Success envelope `{success: true, data}`' };
const errors = {
  '400': { description: 'Missing or invalid field (named in `error`)' },
  '401': { description: 'Missing headers, bad or revoked key, bad signature' },
  '403': { description: 'Key of another brand, plan too low, or plain HTTP' },
  '404': { description: 'Referral code / record not found' },
  '413': { description: 'Body over 1 MiB' },
  '429': { description: 'Rate limited (Retry-After, RateLimit-* headers)' },
};
const apiKey = [{ apiKey: [], brandId: [] }];

function post(summary: string, requestBody: object, responses: Record<string, object>, security: object[] = apiKey) {
  return { post: { summary, security, requestBody, responses: { ...responses, ...errors } } };
}

/** GET /api/v1/openapi.json: the API as OpenAPI 3.1, generated from the same zod schemas. */
export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: { title: 'Referral tracking API', version: '1' },
    components: {
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
      '/api/v1/convert': post('Simplified claim from a signed webhook', body(convertRequestSchema), { '201': envelope, '409': { description: 'Duplicate, with claim_id' } }, [{ brandId: [], signature: [] }]),
    },
  };
}
