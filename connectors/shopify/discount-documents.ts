/**
 * The Admin GraphQL documents of the friend's-offer discount (docs/merchants/shopify-discounts.md), each
 * validated against the 2026-10 schema with its cost and scopes (test/shopify/admin-documents.test.ts).
 * They need `write_discounts` (which grants `read_discounts`).
 */

export const CREATE_BASIC_DISCOUNT = `#graphql
  mutation CreateReferralDiscount($discount: DiscountCodeBasicInput!) {
    discountCodeBasicCreate(basicCodeDiscount: $discount) {
      codeDiscountNode { id }
      userErrors { field message code }
    }
  }`;

export const UPDATE_BASIC_DISCOUNT = `#graphql
  mutation UpdateReferralDiscount($id: ID!, $discount: DiscountCodeBasicInput!) {
    discountCodeBasicUpdate(id: $id, basicCodeDiscount: $discount) {
      codeDiscountNode { id }
      userErrors { field message code }
    }
  }`;

export const CREATE_FREE_SHIPPING_DISCOUNT = `#graphql
  mutation CreateReferralFreeShipping($discount: DiscountCodeFreeShippingInput!) {
    discountCodeFreeShippingCreate(freeShippingCodeDiscount: $discount) {
      codeDiscountNode { id }
      userErrors { field message code }
    }
  }`;

export const UPDATE_FREE_SHIPPING_DISCOUNT = `#graphql
  mutation UpdateReferralFreeShipping($id: ID!, $discount: DiscountCodeFreeShippingInput!) {
    discountCodeFreeShippingUpdate(id: $id, freeShippingCodeDiscount: $discount) {
      codeDiscountNode { id }
      userErrors { field message code }
    }
  }`;

/** The offer changed kind (an amount or percentage ↔ free shipping): the old discount goes, a new one is made. */
export const DELETE_DISCOUNT = `#graphql
  mutation DeleteReferralDiscount($id: ID!) {
    discountCodeDelete(id: $id) {
      deletedCodeDiscountId
      userErrors { field message code }
    }
  }`;

/** Up to 250 codes a call; Shopify adds them in the background (a bulk creation, polled). */
export const ADD_REDEEM_CODES = `#graphql
  mutation AddReferralCodes($discountId: ID!, $codes: [DiscountRedeemCodeInput!]!) {
    discountRedeemCodeBulkAdd(discountId: $discountId, codes: $codes) {
      bulkCreation { id }
      userErrors { field message code }
    }
  }`;

/** Polled until done: a few points, where the codes' page costs about three a code. */
export const REDEEM_CODES_CREATION_DONE = `#graphql
  query ReferralCodesCreationDone($id: ID!) {
    discountRedeemCodeBulkCreation(id: $id) { id done }
  }`;

/** Read once, when done: each code's outcome (its redeem-code id, or Shopify's reasons). */
export const REDEEM_CODES_CREATION = `#graphql
  query ReferralCodesCreation($id: ID!) {
    discountRedeemCodeBulkCreation(id: $id) {
      id
      done
      codes(first: 250) {
        nodes {
          code
          errors { message }
          discountRedeemCode { id }
        }
      }
    }
  }`;

export const DELETE_REDEEM_CODES = `#graphql
  mutation DeleteReferralCodes($discountId: ID!, $ids: [ID!]!) {
    discountCodeRedeemCodeBulkDelete(discountId: $discountId, ids: $ids) {
      job { id }
      userErrors { field message code }
    }
  }`;

/** Whether the discount still exists (a merchant may have deleted it in the admin): the repair asks. */
export const DISCOUNT_EXISTS = `#graphql
  query ReferralDiscountExists($id: ID!) {
    codeDiscountNode(id: $id) { id }
  }`;
