import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { PollingWorker } from '../../core/jobs/polling-worker';
import { expireIssues } from '../../core/rewards/revoke-issues';
import type { ConnectorDeps } from '../../server/http';
import type { AdminApi } from './admin-api';
import { revokeCode } from './reward-code-revoke';
import { debitCredit, leaseCreditDebits } from './reward-credit-debit';
import { issueCode, leaseIssues } from './reward-codes';
import { startShopPassWorker } from './shop-pass-worker';
import type { ShopifyAppConfig } from './shopify-config';

/** Issues one pass takes in all, and of one shop (each at most two calls), so one shop's backlog does not starve the others. */
const ISSUES_PER_PASS = 50;
const ISSUES_PER_SHOP = 10;
/** An issue's lease: far longer than its two calls. */
const LEASE_SECONDS = 120;

export interface RewardCodePassOptions {
  brandId?: string;
  logger?: Logger;
  /** The Admin API of a brand's shop; adminApiForBrand unless a test gives another. */
  apiFor: (brandId: string) => Promise<AdminApi>;
}

/**
 * One pass over the due reward issues of linked shops: expired codes are marked to be taken back
 * first, then each due issue is made or (revoking) taken back, then each due store credit debit is
 * made. Returns how many it worked (0: nothing was due).
 */
export async function issueRewardCodes(db: Knex, options: RewardCodePassOptions): Promise<number> {
  await expireIssues(db, { brandId: options.brandId });
  const issues = await leaseIssues(db, { limit: ISSUES_PER_PASS, perShop: ISSUES_PER_SHOP, leaseSeconds: LEASE_SECONDS, brandId: options.brandId });
  // One API (and token) per shop per pass.
  const apis = new Map<string, Promise<AdminApi>>();
  const apiFor = (brandId: string) => () => {
    if (!apis.has(brandId)) apis.set(brandId, options.apiFor(brandId));
    return apis.get(brandId)!;
  };
  for (const issue of issues) {
    if (issue.status === 'revoking') await revokeCode(db, apiFor(issue.brand_id), issue, options.logger);
    else await issueCode(db, apiFor(issue.brand_id), issue, options.logger);
  }
  // Store credit a refund takes back (reward-credit-debit.ts), leased as the issues are.
  const debits = await leaseCreditDebits(db, { limit: ISSUES_PER_PASS, perShop: ISSUES_PER_SHOP, leaseSeconds: LEASE_SECONDS, brandId: options.brandId });
  for (const debit of debits) await debitCredit(db, apiFor(debit.brand_id), debit, options.logger);
  return issues.length + debits.length;
}

/**
 * The reward codes of this process (docs/merchants/shopify.md "Reward codes"): a pass every
 * `intervalMs` (an approved reward's code is on the shop within about that), and at once after a
 * pass that found work, until none is due.
 */
export function startRewardCodeWorker(deps: ConnectorDeps, appConfig: ShopifyAppConfig | null, intervalMs = 10_000): PollingWorker {
  return startShopPassWorker(deps, appConfig, 'shopify reward code', issueRewardCodes, intervalMs);
}
