import type { ReferralPluginOptions } from './plugin-options';
import type { RewardIssue, RewardIssueService } from './reward-codes';

/** Issues one pull asks for: a run makes at most this many promotions. */
const PULL_LIMIT = 10;

/** The referral service's reward issues over HTTP with the plugin's key (X-API-Key, X-Brand-ID), as it reads the brand. */
export function rewardIssueClient(options: Pick<ReferralPluginOptions, 'serviceUrl' | 'brandId' | 'apiKey' | 'requestTimeoutMs'>): RewardIssueService {
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; data: unknown }> => {
    const url = `${options.serviceUrl}${path}`;
    const response = await fetch(url, {
      method,
      headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'X-API-Key': options.apiKey, 'X-Brand-ID': options.brandId },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.requestTimeoutMs),
    });
    const text = await response.text();
    // 409 to a report: the issue was issued (or taken back, or used) meanwhile, which is what the report wanted to know.
    if (!response.ok && response.status !== 409) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 200)}`);
    return { status: response.status, data: text ? (JSON.parse(text) as { data?: unknown }).data : null };
  };
  return {
    async pull() {
      // take_back: this plugin deletes promotions of codes the service takes back (a refund, their expiry); store_credit: it credits store credit (or makes the code).
      const { data } = await call('GET', `/medusa/reward-issues?limit=${PULL_LIMIT}&actions=make,take_back,store_credit`);
      return (Array.isArray(data) ? data : []) as RewardIssue[];
    },
    async issued(issueId, promotionId, options) {
      const { data } = await call('POST', `/medusa/reward-issues/${issueId}/issued`, { promotion_id: promotionId, ...(options?.noCustomerAccount ? { no_customer_account: true } : {}) });
      return { status: String((data as { status?: unknown } | null)?.status ?? 'issued') };
    },
    async credited(issueId, transactionId) {
      await call('POST', `/medusa/reward-issues/${issueId}/issued`, { method: 'store_credit', transaction_id: transactionId });
    },
    async failed(issueId, reason) {
      await call('POST', `/medusa/reward-issues/${issueId}/failed`, { reason: reason.slice(0, 2000) });
    },
    async revoked(issueId) {
      await call('POST', `/medusa/reward-issues/${issueId}/revoked`);
    },
    async used(issueId) {
      await call('POST', `/medusa/reward-issues/${issueId}/used`);
    },
  };
}
