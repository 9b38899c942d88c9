/**
 * The Admin GraphQL documents of the advocates' reward codes (docs/merchants/shopify.md "Reward
 * codes"), each validated against the 2026-10 schema with its cost and scopes
 * (test/shopify/admin-documents.test.ts). They need `write_discounts` (which grants `read_discounts`).
 */

/** One single-use code for an issue's amount. */
export const CREATE_REWARD_CODE = `#graphql
  mutation CreateRewardCode($discount: DiscountCodeBasicInput!) {
    discountCodeBasicCreate(basicCodeDiscount: $discount) {
      codeDiscountNode { id }
      userErrors { field message code }
    }
  }`;

/**
 * Asked before creating (an issue's code made by a pass that stopped before its commit is found, not
 * made again) and before removing (a code used on the store is not taken back): its uses so far.
 */
export const REWARD_CODE_BY_CODE = `#graphql
  query RewardCodeByCode($code: String!) {
    codeDiscountNodeByCode(code: $code) {
      id
      codeDiscount { ... on DiscountCodeBasic { asyncUsageCount } }
    }
  }`;

/** An unused code taken back (a refund, its expiry): removed from the store. */
export const DELETE_REWARD_CODE = `#graphql
  mutation DeleteRewardCode($id: ID!) {
    discountCodeDelete(id: $id) {
      deletedCodeDiscountId
      userErrors { field message code }
    }
  }`;
