import type { QueryGraph } from './order-graph';
import type { ReferralPluginOptions } from './plugin-options';
import { shareLinkFor } from './share-link';

/**
 * The advocate's page in a Medusa storefront: two store routes for the logged-in customer
 * (src/api/store/referrals, authenticated by src/api/middlewares.ts as Medusa's own
 * /store/customers/me is), which call the referral service server-side with the plugin's secret
 * key. Who the customer is comes from Medusa only (`auth_context.actor_id` → the Customer module):
 * their email and first name are never read from the request, so a customer joins as themselves and
 * sees only their own figures.
 */

export type StorefrontOptions = Pick<ReferralPluginOptions, 'serviceUrl' | 'brandId' | 'apiKey' | 'requestTimeoutMs' | 'storefrontUrl'>;

export interface StorefrontDeps {
  query: QueryGraph;
  options: StorefrontOptions;
}

/** What a store route answers: Medusa's error shape (`{type, message}`) for anything but 200/201. */
export interface StorefrontAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The customer as the Customer module has them. */
export interface StoreCustomer {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
}

export const CUSTOMER_FIELDS = ['id', 'email', 'first_name', 'last_name'];

const JOIN_PATH = '/api/v1/advocates/join';
const BY_EMAIL_PATH = '/api/v1/advocates/by-email';

const failure = (status: number, type: string, message: string): StorefrontAnswer => ({ status, body: { type, message } });

export async function readCustomer(query: QueryGraph, customerId: string): Promise<StoreCustomer | null> {
  const { data } = await query.graph({ entity: 'customer', fields: CUSTOMER_FIELDS, filters: { id: customerId } });
  const customer = data[0] as Partial<StoreCustomer> | undefined;
  if (!customer?.id || typeof customer.email !== 'string' || customer.email === '') return null;
  return { id: customer.id, email: customer.email, first_name: customer.first_name ?? null, last_name: customer.last_name ?? null };
}

/**
 * The first name the service greets them by: the customer's own, or the part of their email before
 * the @ when their account has none (Medusa does not require one; the service does).
 */
export function firstNameOf(customer: StoreCustomer): string {
  const own = customer.first_name?.trim();
  if (own) return own.slice(0, 100);
  return (customer.email.split('@')[0] ?? '').trim().slice(0, 100) || 'Friend';
}

interface ServiceAnswer {
  status: number;
  body: { data?: Record<string, unknown>; error?: string } | null;
  retryAfter: string | null;
}

/** One call to the referral service with the plugin's key, or why it could not be reached. */
async function callService(options: StorefrontOptions, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ServiceAnswer | { unreachable: string }> {
  const url = `${options.serviceUrl}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'X-API-Key': options.apiKey, 'X-Brand-ID': options.brandId },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.requestTimeoutMs),
    });
  } catch (error) {
    return { unreachable: `${method} ${url}: ${(error as Error).message}` };
  }
  const text = await response.text().catch(() => '');
  let parsed: ServiceAnswer['body'] = null;
  try {
    parsed = text ? (JSON.parse(text) as ServiceAnswer['body']) : null;
  } catch {
    parsed = null;
  }
  return { status: response.status, body: parsed, retryAfter: response.headers.get('retry-after') };
}

/** A service answer that is not the one hoped for, as the store route answers it (the merchant's problems are 502, never shown in detail). */
function serviceFailure(answer: ServiceAnswer | { unreachable: string }, what: string): StorefrontAnswer {
  if ('unreachable' in answer) return failure(502, 'unexpected_state', `the referral program is unavailable right now; try again later (${what})`);
  const said = answer.body?.error ?? `status ${answer.status}`;
  if (answer.status === 429) {
    return { status: 429, body: { type: 'not_allowed', message: 'too many referral sign-ups right now; try again later', ...(answer.retryAfter ? { retry_after: Number(answer.retryAfter) } : {}) } };
  }
  if (answer.status === 409) return failure(409, 'not_allowed', said);
  return failure(502, 'unexpected_state', `the referral service could not ${what} (${answer.status}): check the plugin's serviceUrl, brandId and apiKey`);
}

/** The link the customer shares: the plugin's storefrontUrl when set, else the service's (the brand's store_url). */
function linkOf(options: StorefrontOptions, code: string, fromService: unknown): string | null {
  if (options.storefrontUrl) return shareLinkFor(options.storefrontUrl, null, code);
  return typeof fromService === 'string' ? fromService : null;
}

/**
 * POST /store/referrals/join: the logged-in customer joins with their own email and first name (from
 * Medusa) and the consent the page sends (`{consent: true}`; 400 otherwise). 201 the first time,
 * 200 again with the same code: `{joined, referral_code, share_link}`.
 */
export async function joinReferralProgram(deps: StorefrontDeps, customerId: string, body: unknown): Promise<StorefrontAnswer> {
  const consent = body !== null && typeof body === 'object' ? (body as { consent?: unknown }).consent : undefined;
  if (consent !== true) {
    return failure(400, 'invalid_data', 'consent must be true: the customer agreed to join the referral program and get its emails');
  }
  const customer = await readCustomer(deps.query, customerId);
  if (!customer) return failure(404, 'not_found', `customer ${customerId} not found`);
  const lastName = customer.last_name?.trim().slice(0, 100);
  const answer = await callService(deps.options, 'POST', JOIN_PATH, {
    email: customer.email,
    first_name: firstNameOf(customer),
    ...(lastName ? { last_name: lastName } : {}),
    consent: true,
  });
  if ('unreachable' in answer || (answer.status !== 200 && answer.status !== 201)) return serviceFailure(answer, 'record the sign-up');
  const data = answer.body?.data ?? {};
  const code = String(data.referral_code ?? '');
  return { status: answer.status, body: { joined: data.joined === true, referral_code: code, share_link: linkOf(deps.options, code, data.share_link) } };
}

/**
 * GET /store/referrals/me: the logged-in customer's own figures, found by their Medusa email: their
 * code, share link, friends referred, rewards by status (held, approved, paid, and owed, in the brand's
 * currency) and reward codes (on_its_way, ready, used). 404 when they have not joined.
 */
export async function myReferrals(deps: StorefrontDeps, customerId: string): Promise<StorefrontAnswer> {
  const customer = await readCustomer(deps.query, customerId);
  if (!customer) return failure(404, 'not_found', `customer ${customerId} not found`);
  const answer = await callService(deps.options, 'GET', `${BY_EMAIL_PATH}?email=${encodeURIComponent(customer.email)}`);
  if (!('unreachable' in answer) && answer.status === 404) {
    return failure(404, 'not_found', 'you have not joined the referral program yet: join it with POST /store/referrals/join');
  }
  if ('unreachable' in answer || answer.status !== 200) return serviceFailure(answer, 'read the referral figures');
  const data = answer.body?.data ?? {};
  const codes = Array.isArray(data.referral_codes) ? (data.referral_codes as unknown[]).map(String) : [];
  const code = codes[0] ?? '';
  const rewards = (data.rewards ?? {}) as Record<string, unknown>;
  return {
    status: 200,
    body: {
      referral_code: code,
      share_link: code ? linkOf(deps.options, code, data.share_link) : null,
      status: data.status,
      friends_referred: Number(data.friends_referred ?? 0),
      rewards: {
        currency: rewards.currency,
        held: Number(rewards.held ?? 0),
        approved: Number(rewards.approved ?? 0),
        paid: Number(rewards.paid ?? 0),
        // Owed from refunded orders (the service's one figure), taken from the next rewards.
        owed: Number(rewards.owed ?? 0),
      },
      reward_codes: rewardCodesOf(data.reward_codes),
    },
  };
}

/** The advocate's reward codes as the service lists them (newest first): what to enter at checkout, and whether it is ready or used. */
function rewardCodesOf(listed: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(listed)) return [];
  return listed.map((entry: Record<string, unknown>) => ({
    issue_id: entry.issue_id,
    code: entry.code,
    amount: Number(entry.amount ?? 0),
    currency: entry.currency,
    state: entry.state,
    created_at: entry.created_at,
    issued_at: entry.issued_at ?? null,
  }));
}
