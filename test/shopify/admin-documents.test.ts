import fs from 'node:fs';
import path from 'node:path';
import { buildClientSchema, parse, validate } from 'graphql';
import { parse as parseToml } from 'smol-toml';
import { adminIntrospection, adminSchema } from './admin-schema';
import { adminSchemaSubset } from './admin-schema-subset';
import { bulkOrdersQuery } from '../../connectors/shopify/bulk-orders';
import { ruleOn } from './admin-query-rules';
import { connectorDocuments } from './connector-documents';

const documents = connectorDocuments();
const toml = parseToml(fs.readFileSync(path.join(__dirname, '../../shopify.app.toml'), 'utf8')) as any;
const declaredScopes: string[] = toml.access_scopes.scopes.split(',').map((scope: string) => scope.trim());

describe('the Admin GraphQL documents the connector sends', () => {
  it('are all found (webhook subscriptions, the connected shop, every reconcile query)', () => {
    const names = documents.map(({ text }) => /(?:query|mutation)\s+(\w+)/.exec(text)?.[1]).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'ConnectedShop',
        'CreateWebhookSubscription',
        'ExistingWebhookSubscriptions',
        'ReconcileOrderLineItems',
        'ReconcileOrderRefunds',
        'ReconcileOrders',
        'ReconcileBulkOperation',
        'ReconcileBulkOrders',
        'ReconcileOrdersCount',
        'ReconcileRefund',
        'CreateReferralDiscount',
        'UpdateReferralDiscount',
        'CreateReferralFreeShipping',
        'UpdateReferralFreeShipping',
        'DeleteReferralDiscount',
        'AddReferralCodes',
        'ReferralCodesCreation',
        'ReferralCodesCreationDone',
        'ReferralDiscountExists',
        'DeleteReferralCodes',
        'CreateRewardCode',
        'RewardCodeByCode',
        'CreditReward',
        'RecentStoreCredits',
        'RewardCustomerByEmail',
        'DeleteRewardCode',
        'DebitReward',
      ]),
    );
  });

  it.each(documents.map((document) => [document.where, document.text]))('%s is valid against the Admin API 2026-10 schema', (_where, text) => {
    const errors = validate(adminSchema().schema, parse(text)).map((error) => error.message);
    expect(errors).toEqual([]);
  });

  it.each(documents.map((document) => [document.where, document.text]))(
    '%s selects only what the scopes in shopify.app.toml and protected customer data level 2 (email) allow',
    (_where, text) => {
      const ruling = ruleOn(adminSchema(), parse(text), { first: 1 }, { scopes: declaredScopes, protectedContent: ['email'] });
      expect(ruling.denied).toEqual([]);
    },
  );

  it('the bulk query of `reconcile --bulk` is valid and selects only what the declared scopes allow', () => {
    const document = parse(bulkOrdersQuery('2026-11-01'));
    expect(validate(adminSchema().schema, document).map((error) => error.message)).toEqual([]);
    expect(ruleOn(adminSchema(), document, {}, { scopes: declaredScopes, protectedContent: ['email'] }).denied).toEqual([]);
  });

  it('Shopify\'s schema would refuse what reconcile used to select: the customer\'s name and the product without their scopes', () => {
    const old = parse('query { orders(first: 1) { nodes { customer { firstName } lineItems(first: 1) { nodes { product { id } variant { id } } } } } }');
    const ruling = ruleOn(adminSchema(), old, {}, { scopes: declaredScopes, protectedContent: ['email'] });
    expect(ruling.denied.map((denial) => denial.requiredAccess)).toEqual([
      'protected customer data: name',
      '`read_products` access scope',
      '`read_products` access scope',
    ]);
  });
});

describe('the fake Shopify\'s schema subset (test/shopify/admin-schema-subset.ts)', () => {
  const texts = [...documents.map(({ text }) => text), bulkOrdersQuery('2026-11-01')];
  const subset = buildClientSchema(adminSchemaSubset(adminSchema().schema, adminIntrospection(), texts));

  it('accepts every document the connector sends, as the whole schema does', () => {
    for (const text of texts) expect(validate(subset, parse(text)).map((error) => error.message)).toEqual([]);
  });

  it('keeps every argument of a kept field: a required one left out is refused by both', () => {
    const missing = parse('query { order { id } }');
    expect(validate(adminSchema().schema, missing).map((error) => error.message)).toEqual(['Field "order" argument "id" of type "ID!" is required, but it was not provided.']);
    expect(validate(subset, missing).map((error) => error.message)).toEqual(['Field "order" argument "id" of type "ID!" is required, but it was not provided.']);
  });

  it('lacks what the connector never selects, so the fake asks the whole schema then', () => {
    const other = parse('query { products(first: 1) { nodes { title } } }');
    expect(validate(adminSchema().schema, other)).toEqual([]);
    expect(validate(subset, other).map((error) => error.message)).toEqual(['Cannot query field "products" on type "QueryRoot".']);
  });
});
