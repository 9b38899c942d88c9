import fs from 'node:fs';
import path from 'node:path';
import { parse, validate } from 'graphql';
import { parse as parseToml } from 'smol-toml';
import { adminSchema } from './admin-schema';
import { bulkOrdersQuery } from '../../connectors/shopify/bulk-orders';
import { ruleOn } from './admin-query-rules';

const CONNECTOR = path.join(__dirname, '../../connectors/shopify');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * Every Admin GraphQL document in the connector's code (each starts with `#graphql`): exported
 * constants are taken from the module, as sent; an inline literal is read from the source.
 */
function connectorDocuments(): Array<{ where: string; text: string }> {
  const documents: Array<{ where: string; text: string }> = [];
  for (const file of sourceFiles(CONNECTOR)) {
    const source = fs.readFileSync(file, 'utf8');
    const occurrences = source.split('#graphql').length - 1;
    if (occurrences === 0) continue;
    const where = path.relative(CONNECTOR, file);
    const exported = Object.entries(require(file) as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].startsWith('#graphql'),
    );
    for (const [name, text] of exported) documents.push({ where: `${where} ${name}`, text });
    const inline = [...source.matchAll(/'(#graphql(?:[^'\\]|\\.)*)'/g)].map((match) => JSON.parse(`"${match[1]!.replace(/"/g, '\\"')}"`) as string);
    for (const text of inline) documents.push({ where: `${where} (inline)`, text });
    if (exported.length + inline.length !== occurrences) {
      throw new Error(`${where} has ${occurrences} #graphql documents but ${exported.length + inline.length} could be read: export them as constants`);
    }
  }
  return documents;
}

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

  it('Shopify\'s schema would refuse what reconcile used to select: the customer and the product without their scopes', () => {
    const old = parse('query { orders(first: 1) { nodes { customer { firstName } lineItems(first: 1) { nodes { product { id } variant { id } } } } } }');
    const ruling = ruleOn(adminSchema(), old, {}, { scopes: declaredScopes, protectedContent: ['email'] });
    expect(ruling.denied.map((denial) => denial.requiredAccess)).toEqual([
      '`read_customers` access scope',
      'protected customer data: name',
      '`read_products` access scope',
      '`read_products` access scope',
    ]);
  });
});
