/**
 * The Admin GraphQL documents of rewards issued as Shopify store credit (docs/merchants/shopify.md
 * "Store credit"), each validated against the 2026-10 schema with its cost and scopes
 * (test/shopify/admin-documents.test.ts). Crediting and debiting need `write_store_credit_account_transactions`;
 * reading a customer's accounts (the look-up before a retry) `read_customers` and
 * `read_store_credit_accounts`: an account is reached through its owner, the customer.
 */

/** The amount added to the customer's store credit (an account in that currency is made if none). */
export const CREDIT_REWARD = `#graphql
  mutation CreditReward($customer: ID!, $credit: StoreCreditAccountCreditInput!) {
    storeCreditAccountCredit(id: $customer, creditInput: $credit) {
      storeCreditAccountTransaction { id }
      userErrors { field message code }
    }
  }`;

/**
 * The customer's account in the currency: its id, balance and latest transactions of one
 * type (`type:credit` or `type:debit`). Shopify documents no idempotency key for
 * storeCreditAccountCredit nor storeCreditAccountDebit, so a retry looks for its own transaction;
 * a debit also reads what the account still holds.
 */
export const RECENT_STORE_CREDITS = `#graphql
  query RecentStoreCredits($customer: ID!, $currency: String!, $type: String!) {
    customer(id: $customer) {
      storeCreditAccounts(first: 2, query: $currency) {
        nodes {
          id
          balance { amount currencyCode }
          transactions(first: 25, query: $type, sortKey: CREATED_AT, reverse: true) {
            nodes {
              ... on StoreCreditAccountCreditTransaction { id createdAt amount { amount currencyCode } }
              ... on StoreCreditAccountDebitTransaction { id createdAt amount { amount currencyCode } }
            }
          }
        }
      }
    }
  }`;

/** What a refund takes back from the customer's account in the currency (at most its balance). */
export const DEBIT_REWARD = `#graphql
  mutation DebitReward($account: ID!, $debit: StoreCreditAccountDebitInput!) {
    storeCreditAccountDebit(id: $account, debitInput: $debit) {
      storeCreditAccountTransaction { id }
      userErrors { field message code }
    }
  }`;

/** The advocate's customer account found by their email (with read_customers), when they never joined signed in. */
export const CUSTOMER_BY_EMAIL = `#graphql
  query RewardCustomerByEmail($email: String!) {
    customerByIdentifier(identifier: { emailAddress: $email }) { id }
  }`;
