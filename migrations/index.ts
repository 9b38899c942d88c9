import type { Knex } from 'knex';
import * as coreSchema from './20261122_0001_core_schema';
import * as claimRedemptionsAndVisitClicks from './20261123_0002_claim_redemptions_and_visit_clicks';
import * as rateLimits from './20261124_0003_rate_limits';
import * as shopify from './20261125_0004_shopify';
import * as medusa from './20261126_0005_medusa';
import * as rewardLedgerByConversion from './20261127_0006_reward_ledger_by_conversion';
import * as redemptionReturns from './20261128_0007_redemption_returns';
import * as statusChecks from './20261129_0008_status_checks';
import * as shopifyWebhookSubscriptions from './20261130_0009_shopify_webhook_subscriptions';
import * as shopifySalesAndShopMoney from './20261201_0010_shopify_sales_and_shop_money';
import * as shopifyDeliveryIdentityAndDataRequests from './20261202_0011_shopify_delivery_identity_and_data_requests';
import * as rewardLifecycle from './20261203_0012_reward_lifecycle';
import * as fraudReview from './20261204_0013_fraud_review';
import * as currencies from './20261205_0014_currencies';
import * as outboundWebhooks from './20261206_0015_outbound_webhooks';
import * as dashboard from './20261207_0016_dashboard';
import * as rewardAmountsInCurrency from './20261208_0017_reward_amounts_in_currency';
import * as reportMoney from './20261209_0018_report_money';
import * as programEmails from './20261210_0019_program_emails';
import * as merchantAccounts from './20261211_0020_merchant_accounts';
import * as advocateStatus from './20261212_0021_advocate_status';
import * as shopifyDiscounts from './20261213_0022_shopify_discounts';
import * as advocatesUpdatedAt from './20261214_0023_advocates_updated_at';
import * as storefront from './20261215_0024_storefront';
import * as shopifyStorefront from './20261216_0025_shopify_storefront';
import * as autoEnroll from './20261217_0026_auto_enroll';
import * as advocateLinkAgain from './20261218_0027_advocate_link_again';
import * as settingBounds from './20261219_0028_setting_bounds';
import * as rewardReversedEmail from './20261220_0029_reward_reversed_email';
import * as rewardIssues from './20261221_0030_reward_issues';
import * as rewardIssuedEvent from './20261222_0031_reward_issued_event';
import * as rewardIssueRevoke from './20261223_0032_reward_issue_revoke';
import * as storeCredit from './20261224_0033_store_credit';
import * as medusaStores from './20261225_0034_medusa_stores';
import * as merchantNotifications from './20261230_0039_merchant_notifications';
import * as rewardCreditDebits from './20261231_0040_reward_credit_debits';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// Listed explicitly (not read from the file system) so migrations run the same under tsx, jest
// and compiled JavaScript. Append new migrations; never reorder or edit a landed one.
export const migrations: Array<[name: string, migration: Migration]> = [
  ['20261122_0001_core_schema', coreSchema],
  ['20261123_0002_claim_redemptions_and_visit_clicks', claimRedemptionsAndVisitClicks],
  ['20261124_0003_rate_limits', rateLimits],
  ['20261125_0004_shopify', shopify],
  ['20261126_0005_medusa', medusa],
  ['20261127_0006_reward_ledger_by_conversion', rewardLedgerByConversion],
  ['20261128_0007_redemption_returns', redemptionReturns],
  ['20261129_0008_status_checks', statusChecks],
  ['20261130_0009_shopify_webhook_subscriptions', shopifyWebhookSubscriptions],
  ['20261201_0010_shopify_sales_and_shop_money', shopifySalesAndShopMoney],
  ['20261202_0011_shopify_delivery_identity_and_data_requests', shopifyDeliveryIdentityAndDataRequests],
  ['20261203_0012_reward_lifecycle', rewardLifecycle],
  ['20261204_0013_fraud_review', fraudReview],
  ['20261205_0014_currencies', currencies],
  ['20261206_0015_outbound_webhooks', outboundWebhooks],
  ['20261207_0016_dashboard', dashboard],
  ['20261208_0017_reward_amounts_in_currency', rewardAmountsInCurrency],
  ['20261209_0018_report_money', reportMoney],
  ['20261210_0019_program_emails', programEmails],
  ['20261211_0020_merchant_accounts', merchantAccounts],
  ['20261212_0021_advocate_status', advocateStatus],
  ['20261213_0022_shopify_discounts', shopifyDiscounts],
  ['20261214_0023_advocates_updated_at', advocatesUpdatedAt],
  ['20261215_0024_storefront', storefront],
  ['20261216_0025_shopify_storefront', shopifyStorefront],
  ['20261217_0026_auto_enroll', autoEnroll],
  ['20261218_0027_advocate_link_again', advocateLinkAgain],
  ['20261219_0028_setting_bounds', settingBounds],
  ['20261220_0029_reward_reversed_email', rewardReversedEmail],
  ['20261221_0030_reward_issues', rewardIssues],
  ['20261222_0031_reward_issued_event', rewardIssuedEvent],
  ['20261223_0032_reward_issue_revoke', rewardIssueRevoke],
  ['20261224_0033_store_credit', storeCredit],
  ['20261225_0034_medusa_stores', medusaStores],
  ['20261230_0039_merchant_notifications', merchantNotifications],
  ['20261231_0040_reward_credit_debits', rewardCreditDebits],
];
