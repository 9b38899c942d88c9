import { randomBytes } from 'node:crypto';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLFieldResolver, executeSync, getNamedType, parse, validate } from 'graphql';
import { type AdminSchema, adminSchema, firstAdminSchema } from './admin-schema';
import { type Grant, MAX_QUERY_COST, ruleOn } from './admin-query-rules';

export interface RecordedRequest {
  url: string;
  shop: string;
  path: string;
  body: Record<string, any>;
  headers: Record<string, string>;
}

interface Tokens {
  accessToken: string;
  refreshToken: string;
}

/**
 * A document validated as Shopify would: against the schema subset first, and on a refusal against
 * the whole schema, whose verdict stands (the subset lacks fields, it never accepts more).
 */
function checked(document: DocumentNode): { admin: AdminSchema; invalid: readonly GraphQLError[] } {
  const first = firstAdminSchema();
  const invalid = validate(first.schema, document);
  if (invalid.length === 0 || !first.subset) return { admin: first, invalid };
  return { admin: adminSchema(), invalid: validate(adminSchema().schema, document) };
}

/** Runs a valid document over the fake's state; an error on the subset (a type it lacks) is run again on the whole schema. */
function executed(admin: AdminSchema, document: DocumentNode, rootValue: unknown, variableValues: Record<string, unknown>): ExecutionResult {
  const run = (schema: AdminSchema) =>
    executeSync({ schema: schema.schema, document, rootValue, variableValues, fieldResolver: paginatingResolver, typeResolver: (value: any) => value?.__typename });
  const result = run(admin);
  return result.errors?.length && admin.subset ? run(adminSchema()) : result;
}

/**
 * A stand-in for Shopify behind @shopify/shopify-api's outbound fetch: the OAuth token endpoint
 * (authorization code, refresh, non-expiring → expiring exchange) and the GraphQL Admin API
 * operations the app uses. Everything offline; every request is recorded.
 */
export class FakeShopify {
  readonly requests: RecordedRequest[] = [];
  /** Authorization codes handed out by the consent screen, by shop. */
  readonly codes = new Map<string, string>();
  readonly tokens = new Map<string, Tokens>();
  /** Tokens of merchants' custom apps (`shopify connect`), by shop. */
  readonly customTokens = new Map<string, string>();
  readonly subscriptions = new Map<string, Array<{ id: string; topic: string; uri: string }>>();
  /** GraphQL Order nodes returned by the orders query, by shop. */
  readonly orders = new Map<string, Array<Record<string, any>>>();
  /** Scopes granted to the app on a shop (default: what shopify.app.toml asks for). */
  readonly scopes = new Map<string, string[]>();
  /** Protected customer data fields approved for the app on a shop (default: email). */
  readonly protectedContent = new Map<string, string[]>();
  /** Topics whose subscription Shopify refuses, with its userError message. */
  readonly refusedTopics = new Map<string, string>();
  /** Each shop's currency (shop money); USD unless a test sets another. */
  readonly currencies = new Map<string, string>();
  /** Each GraphQL request's requested cost, as Shopify computes it. */
  readonly costs: Array<{ shop: string; operation: string | null; cost: number }> = [];
  /** Shops that got a THROTTLED answer. */
  readonly throttled: string[] = [];
  /** Each shop's rate-limit bucket (set one to test throttling). */
  readonly buckets = new Map<string, Bucket>();
  /** Result files of bulk operations, by path on BULK_HOST. */
  readonly bulkFiles = new Map<string, string>();
  /** Each bulk operation started, with its query. */
  readonly bulkOperations: Array<{ shop: string; id: string; query: string }> = [];
  /** Code discounts the app made, by shop: kind, the input last written, and their redeem codes (by lower-cased code). */
  readonly discounts = new Map<string, FakeDiscount[]>();
  /** Bulk redeem-code creations, by id. */
  readonly bulkCreations = new Map<string, { shop: string; polls: number; codes: Array<{ code: string; errors: Array<{ code: string; field: string[]; message: string }>; discountRedeemCode: { id: string; code: string } | null }> }>();
  /** Polls a bulk creation takes to be done (Shopify works it in the background). */
  bulkPollsUntilDone = 1;
  /** Codes Shopify refuses to add, with its message. */
  readonly refusedCodes = new Map<string, string>();
  /** Customers by shop (the ones store credit may go to): their id and email. */
  readonly customers = new Map<string, Array<{ id: string; email: string }>>();
  /** Store credit accounts by shop: one per customer and currency, with its transactions, oldest first. */
  readonly storeCreditAccounts = new Map<string, FakeStoreCreditAccount[]>();
  private subscriptionIds = 0;
  private discountIds = 0;
  /** Seconds an issued access token lives. */
  accessTokenLifetime = 3600;

  install(): void {
    setAbstractFetchFunc(this.fetch as never);
  }

  /** What the consent screen does: an authorization code for the shop. */
  authorize(shop: string): string {
    const code = randomBytes(8).toString('hex');
    this.codes.set(shop, code);
    return code;
  }

  graphqlCalls(shop: string, operation: string): RecordedRequest[] {
    return this.requests.filter((request) => request.shop === shop && request.path.endsWith('/graphql.json') && operationName(request.body.query) === operation);
  }

  tokenCalls(shop: string): RecordedRequest[] {
    return this.requests.filter((request) => request.shop === shop && request.path === '/admin/oauth/access_token');
  }

  private readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, any>) : {};
    const request: RecordedRequest = { url: url.href, shop: url.hostname, path: url.pathname, body, headers };
    this.requests.push(request);
    if (url.pathname === '/admin/oauth/access_token') return this.token(request);
    if (/^\/admin\/api\/[\d-]+\/graphql\.json$/.test(url.pathname)) return this.graphql(request);
    if (url.hostname === BULK_HOST) {
      const file = this.bulkFiles.get(url.pathname);
      return file === undefined ? json(404, { errors: 'Not Found' }) : new Response(file, { status: 200, headers: { 'Content-Type': 'application/jsonl' } });
    }
    return json(404, { errors: 'Not Found' });
  };

  private issue(shop: string, scope = 'read_orders'): Response {
    const tokens = { accessToken: `shpat_${randomBytes(12).toString('hex')}`, refreshToken: `shprt_${randomBytes(12).toString('hex')}` };
    this.tokens.set(shop, tokens);
    return json(200, {
      access_token: tokens.accessToken,
      scope,
      expires_in: this.accessTokenLifetime,
      refresh_token: tokens.refreshToken,
      refresh_token_expires_in: 7_776_000,
    });
  }

  private token(request: RecordedRequest): Response {
    const { body, shop } = request;
    if (body.grant_type === 'refresh_token') {
      if (this.tokens.get(shop)?.refreshToken !== body.refresh_token) return json(400, { error: 'invalid_grant' });
      return this.issue(shop);
    }
    if (body.grant_type === 'urn:ietf:params:oauth:grant-type:token-exchange') return this.issue(shop);
    if (!body.code || this.codes.get(shop) !== body.code) return json(400, { error: 'invalid_request' });
    this.codes.delete(shop);
    return this.issue(shop);
  }

  private graphql(request: RecordedRequest): Response {
    const { shop, body, headers } = request;
    const token = headers['x-shopify-access-token'];
    if (!token || (token !== this.tokens.get(shop)?.accessToken && token !== this.customTokens.get(shop))) {
      return json(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    }
    const variables = body.variables ?? {};
    let document: DocumentNode;
    try {
      document = parse(String(body.query ?? ''));
    } catch (error) {
      return json(200, { errors: [{ message: (error as Error).message }] });
    }
    const { admin, invalid } = checked(document);
    if (invalid.length > 0) return json(200, { errors: invalid.map((error) => ({ message: error.message })) });
    const ruling = ruleOn(admin, document, variables, this.grantFor(shop));
    this.costs.push({ shop, operation: operationName(body.query), cost: ruling.cost });
    if (ruling.cost > MAX_QUERY_COST) {
      return json(200, {
        errors: [{ message: `Query cost is ${ruling.cost}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).`, extensions: { code: 'MAX_COST_EXCEEDED', cost: ruling.cost, maxCost: MAX_QUERY_COST } }],
      });
    }
    if (ruling.denied.length > 0) {
      return json(200, {
        errors: ruling.denied.map((denial) => ({ message: `Access denied for ${denial.path}.`, extensions: { code: 'ACCESS_DENIED', requiredAccess: denial.requiredAccess } })),
      });
    }
    const bucket = this.bucketFor(shop);
    if (ruling.cost > bucket.available) {
      this.throttled.push(shop);
      return json(200, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }], extensions: { cost: this.costExtension(ruling.cost, bucket) } });
    }
    bucket.available -= ruling.cost;
    const result = executed(admin, document, this.root(shop), variables);
    return json(200, { ...result, extensions: { cost: this.costExtension(ruling.cost, bucket) } });
  }

  private grantFor(shop: string): Grant {
    return { scopes: this.scopes.get(shop) ?? ['read_orders'], protectedContent: this.protectedContent.get(shop) ?? ['email'] };
  }

  /** Shopify's leaky bucket: points restore continuously up to the maximum. */
  private bucketFor(shop: string): Bucket {
    const bucket = this.buckets.get(shop) ?? { maximum: 20000, available: 20000, restoreRate: 1000, at: Date.now() };
    const now = Date.now();
    bucket.available = Math.min(bucket.maximum, bucket.available + ((now - bucket.at) / 1000) * bucket.restoreRate);
    bucket.at = now;
    this.buckets.set(shop, bucket);
    return bucket;
  }

  private costExtension(requested: number, bucket: Bucket) {
    return {
      requestedQueryCost: requested,
      actualQueryCost: requested,
      throttleStatus: { maximumAvailable: bucket.maximum, currentlyAvailable: Math.floor(bucket.available), restoreRate: bucket.restoreRate },
    };
  }

  /** The root fields the app uses, answered from this fake's state. */
  private root(shop: string): Record<string, unknown> {
    const subscriptions = this.subscriptions.get(shop) ?? [];
    this.subscriptions.set(shop, subscriptions);
    const orders = this.orders.get(shop) ?? [];
    return {
      shop: () => ({ name: `Shop ${shop}`, currencyCode: this.currencies.get(shop) ?? 'USD' }),
      webhookSubscriptions: () => ({ nodes: subscriptions }),
      webhookSubscriptionCreate: ({ topic, webhookSubscription }: { topic: string; webhookSubscription: { uri: string } }) => {
        const refusal = this.refusedTopics.get(topic);
        if (refusal) return { webhookSubscription: null, userErrors: [{ field: ['webhookSubscription'], message: refusal }] };
        const created = { id: `gid://shopify/WebhookSubscription/${++this.subscriptionIds}`, topic, uri: webhookSubscription.uri };
        subscriptions.push(created);
        return { webhookSubscription: created, userErrors: [] };
      },
      ordersCount: () => ({ count: orders.length, precision: 'EXACT' }),
      orders: () => ({ nodes: orders }),
      order: ({ id }: { id: string }) => orders.find((order) => order.id === id) ?? null,
      bulkOperationRunQuery: ({ query }: { query: string }) => this.runBulkQuery(shop, query),
      bulkOperation: ({ id }: { id: string }) => {
        const operation = this.bulkOperations.find((candidate) => candidate.id === id);
        if (!operation) return null;
        const path = `/${idFromGid(id)}.jsonl`;
        const lines = this.bulkFiles.get(path)!.split('\n').filter(Boolean).length;
        return { id, status: 'COMPLETED', errorCode: null, objectCount: String(lines), url: lines ? `https://${BULK_HOST}${path}` : null, partialDataUrl: null };
      },
      refund: ({ id }: { id: string }) => orders.flatMap((order) => order.refunds ?? []).find((refund) => refund.id === id) ?? null,
      ...this.discountRoot(shop),
      ...this.storeCreditRoot(shop),
    };
  }

  /** The code-discount mutations and the bulk creation query, over this fake's discounts. */
  private discountRoot(shop: string): Record<string, unknown> {
    const discounts = this.discounts.get(shop) ?? [];
    this.discounts.set(shop, discounts);
    const taken = (code: string) => discounts.some((d) => d.anchor.toLowerCase() === code.toLowerCase() || d.codes.has(code.toLowerCase()));
    const create = (kind: FakeDiscount['kind']) => (args: Record<string, any>) => {
      const input = args.basicCodeDiscount ?? args.freeShippingCodeDiscount;
      if (!input.code || taken(input.code)) return { codeDiscountNode: null, userErrors: [{ field: ['code'], message: 'Code must be unique. Please try a different code.', code: 'TAKEN' }] };
      const discount: FakeDiscount = { id: `gid://shopify/DiscountCodeNode/${++this.discountIds}`, kind, anchor: input.code, input, codes: new Map() };
      discounts.push(discount);
      return { codeDiscountNode: { id: discount.id }, userErrors: [] };
    };
    const update = (kind: FakeDiscount['kind']) => (args: Record<string, any>) => {
      const discount = discounts.find((d) => d.id === args.id && d.kind === kind);
      if (!discount) return { codeDiscountNode: null, userErrors: [{ field: ['id'], message: 'Discount does not exist', code: 'INVALID' }] };
      discount.input = { ...discount.input, ...(args.basicCodeDiscount ?? args.freeShippingCodeDiscount) };
      return { codeDiscountNode: { id: discount.id }, userErrors: [] };
    };
    return {
      codeDiscountNode: ({ id }: { id: string }) => (discounts.some((d) => d.id === id) ? { id } : null),
      codeDiscountNodeByCode: ({ code }: { code: string }) => {
        const discount = discounts.find((d) => d.anchor.toLowerCase() === code.toLowerCase() || d.codes.has(code.toLowerCase()));
        if (!discount) return null;
        const codeDiscount = { __typename: discount.kind === 'basic' ? 'DiscountCodeBasic' : 'DiscountCodeFreeShipping', asyncUsageCount: discount.uses ?? 0 };
        return { id: discount.id, codeDiscount };
      },
      discountCodeBasicCreate: create('basic'),
      discountCodeBasicUpdate: update('basic'),
      discountCodeFreeShippingCreate: create('free_shipping'),
      discountCodeFreeShippingUpdate: update('free_shipping'),
      discountCodeDelete: ({ id }: { id: string }) => {
        const index = discounts.findIndex((d) => d.id === id);
        if (index < 0) return { deletedCodeDiscountId: null, userErrors: [{ field: ['id'], message: 'Discount does not exist', code: 'INVALID' }] };
        discounts.splice(index, 1);
        return { deletedCodeDiscountId: id, userErrors: [] };
      },
      discountRedeemCodeBulkAdd: ({ discountId, codes }: { discountId: string; codes: Array<{ code: string }> }) => {
        const discount = discounts.find((d) => d.id === discountId);
        if (!discount) return { bulkCreation: null, userErrors: [{ field: ['discountId'], message: 'Discount does not exist', code: 'INVALID' }] };
        if (codes.length > 250) return { bulkCreation: null, userErrors: [{ field: ['codes'], message: 'Codes can only contain up to 250 codes', code: 'TOO_MANY_ARGUMENTS' }] };
        const results = codes.map(({ code }) => {
          const refusal = this.refusedCodes.get(code) ?? (taken(code) ? 'Code must be unique. Please try a different code.' : null);
          if (refusal) return { code, errors: [{ code: 'INVALID', field: ['code'], message: refusal }], discountRedeemCode: null };
          const redeem = { id: `gid://shopify/DiscountRedeemCode/${++this.discountIds}`, code };
          discount.codes.set(code.toLowerCase(), redeem);
          return { code, errors: [], discountRedeemCode: redeem };
        });
        const id = `gid://shopify/DiscountRedeemCodeBulkCreation/${++this.discountIds}`;
        this.bulkCreations.set(id, { shop, polls: 0, codes: results });
        return { bulkCreation: { id }, userErrors: [] };
      },
      discountRedeemCodeBulkCreation: ({ id }: { id: string }) => {
        const creation = this.bulkCreations.get(id);
        if (!creation || creation.shop !== shop) return null;
        creation.polls += 1;
        const done = creation.polls >= this.bulkPollsUntilDone;
        const failed = creation.codes.filter((code) => code.errors.length > 0).length;
        return {
          id,
          done,
          codesCount: creation.codes.length,
          importedCount: done ? creation.codes.length - failed : 0,
          failedCount: done ? failed : 0,
          codes: { nodes: done ? creation.codes : [] },
        };
      },
      discountCodeRedeemCodeBulkDelete: ({ discountId, ids }: { discountId: string; ids: string[] }) => {
        const discount = discounts.find((d) => d.id === discountId);
        if (!discount) return { job: null, userErrors: [{ field: ['discountId'], message: 'Discount does not exist', code: 'INVALID' }] };
        for (const [code, redeem] of discount.codes) if (ids.includes(redeem.id)) discount.codes.delete(code);
        return { job: { id: `gid://shopify/Job/${++this.discountIds}` }, userErrors: [] };
      },
    };
  }

  /** Customers and their store credit: the credit and debit mutations answer as Shopify does, userErrors included. */
  private storeCreditRoot(shop: string): Record<string, unknown> {
    const customers = this.customers.get(shop) ?? [];
    const accounts = this.storeCreditAccounts.get(shop) ?? [];
    this.storeCreditAccounts.set(shop, accounts);
    const customerNode = (id: string) => ({
      id,
      storeCreditAccounts: ({ query }: { query?: string }) => {
        const currency = /currency_code:(\w+)/.exec(query ?? '')?.[1];
        return accounts.filter((account) => account.owner === id && (!currency || account.currency === currency)).map((account) => this.accountNode(account));
      },
    });
    const accountFor = (id: string, currency: string, create: boolean): FakeStoreCreditAccount | 'OWNER_NOT_FOUND' | 'ACCOUNT_NOT_FOUND' | 'MISMATCHING_CURRENCY' => {
      if (id.startsWith('gid://shopify/StoreCreditAccount/')) {
        const account = accounts.find((candidate) => candidate.id === id);
        if (!account) return 'ACCOUNT_NOT_FOUND';
        return account.currency === currency ? account : 'MISMATCHING_CURRENCY';
      }
      if (!customers.some((customer) => customer.id === id)) return 'OWNER_NOT_FOUND';
      const found = accounts.find((account) => account.owner === id && account.currency === currency);
      if (found || !create) return found ?? 'ACCOUNT_NOT_FOUND';
      const made: FakeStoreCreditAccount = { id: `gid://shopify/StoreCreditAccount/${++this.discountIds}`, owner: id, currency, balance: 0, transactions: [] };
      accounts.push(made);
      return made;
    };
    const cents = (amount: string) => Math.round(Number(amount) * 100);
    const money = (value: number, currencyCode: string) => ({ amount: (value / 100).toFixed(2), currencyCode });
    const transaction = (account: FakeStoreCreditAccount, kind: 'credit' | 'debit', amount: number, expiresAt: string | null) => {
      account.balance += kind === 'credit' ? amount : -amount;
      const made: FakeStoreCreditTransaction = {
        __typename: kind === 'credit' ? 'StoreCreditAccountCreditTransaction' : 'StoreCreditAccountDebitTransaction',
        id: `gid://shopify/StoreCreditAccount${kind === 'credit' ? 'Credit' : 'Debit'}Transaction/${++this.discountIds}`,
        kind,
        amount: money(kind === 'credit' ? amount : -amount, account.currency),
        balanceAfterTransaction: money(account.balance, account.currency),
        createdAt: new Date().toISOString(),
        event: 'ADJUSTMENT',
        expiresAt,
        origin: null,
      };
      account.transactions.push(made);
      return { ...made, account: this.accountNode(account), remainingAmount: made.amount };
    };
    return {
      customer: ({ id }: { id: string }) => (customers.some((customer) => customer.id === id) ? customerNode(id) : null),
      customerByIdentifier: ({ identifier }: { identifier: { emailAddress?: string; id?: string } }) => {
        const email = identifier.emailAddress?.toLowerCase();
        const customer = customers.find((candidate) => (email ? candidate.email.toLowerCase() === email : candidate.id === identifier.id));
        return customer ? customerNode(customer.id) : null;
      },
      storeCreditAccountCredit: ({ id, creditInput }: { id: string; creditInput: { creditAmount: { amount: string; currencyCode: string }; expiresAt?: string | null } }) => {
        const amount = cents(creditInput.creditAmount.amount);
        const refuse = (code: string, message: string, field = ['creditInput', 'creditAmount', 'amount']) => ({ storeCreditAccountTransaction: null, userErrors: [{ field, message, code }] });
        if (amount <= 0) return refuse('NEGATIVE_OR_ZERO_AMOUNT', 'A positive amount must be used to credit a store credit account.');
        if (creditInput.expiresAt && Date.parse(creditInput.expiresAt) < Date.now()) return refuse('EXPIRES_AT_IN_PAST', 'The expiry date must be in the future.', ['creditInput', 'expiresAt']);
        const account = accountFor(id, creditInput.creditAmount.currencyCode, true);
        if (typeof account === 'string') return refuse(account, account === 'OWNER_NOT_FOUND' ? 'Owner does not exist.' : 'Store credit account does not exist.', ['id']);
        return { storeCreditAccountTransaction: transaction(account, 'credit', amount, creditInput.expiresAt ?? null), userErrors: [] };
      },
      storeCreditAccountDebit: ({ id, debitInput }: { id: string; debitInput: { debitAmount: { amount: string; currencyCode: string } } }) => {
        const amount = cents(debitInput.debitAmount.amount);
        const refuse = (code: string, message: string, field = ['debitInput', 'debitAmount', 'amount']) => ({ storeCreditAccountTransaction: null, userErrors: [{ field, message, code }] });
        if (amount <= 0) return refuse('NEGATIVE_OR_ZERO_AMOUNT', 'A positive amount must be used to debit a store credit account.');
        const account = accountFor(id, debitInput.debitAmount.currencyCode, false);
        if (typeof account === 'string') return refuse(account === 'OWNER_NOT_FOUND' ? 'ACCOUNT_NOT_FOUND' : account, 'Store credit account does not exist.', ['id']);
        if (account.balance < amount) return refuse('INSUFFICIENT_FUNDS', 'The store credit account does not have sufficient funds.');
        return { storeCreditAccountTransaction: transaction(account, 'debit', amount, null), userErrors: [] };
      },
      storeCreditAccount: ({ id }: { id: string }) => {
        const account = accounts.find((candidate) => candidate.id === id);
        return account ? this.accountNode(account) : null;
      },
    };
  }

  /** A store credit account as the schema has it: its transactions newest last, filtered by type and ordered as asked. */
  private accountNode(account: FakeStoreCreditAccount) {
    return {
      id: account.id,
      balance: { amount: (account.balance / 100).toFixed(2), currencyCode: account.currency },
      transactions: ({ query, reverse }: { query?: string; reverse?: boolean }) => {
        const type = /type:(\w+)/.exec(query ?? '')?.[1];
        const list = account.transactions.filter((transaction) => !type || transaction.kind === type);
        return (reverse ? [...list].reverse() : list).map((transaction) => ({ ...transaction, remainingAmount: transaction.amount }));
      },
    };
  }

  /**
   * A bulk query as Shopify runs it: validated against the schema (connections need no first),
   * executed over the shop's orders, and written as JSONL: each node of a nested connection on a
   * line of its own with `__parentId`, after its parent.
   */
  private runBulkQuery(shop: string, query: string) {
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (error) {
      return { bulkOperation: null, userErrors: [{ field: ['query'], message: (error as Error).message }] };
    }
    const { admin, invalid } = checked(document);
    const denied = ruleOn(admin, document, {}, this.grantFor(shop)).denied;
    if (invalid.length > 0 || denied.length > 0) {
      return { bulkOperation: null, userErrors: [...invalid.map((error) => error.message), ...denied.map((denial) => `Access denied for ${denial.path}.`)].map((message) => ({ field: ['query'], message })) };
    }
    const result = executed(admin, document, this.root(shop), {});
    if (result.errors?.length) return { bulkOperation: null, userErrors: result.errors.map((error) => ({ field: ['query'], message: error.message })) };
    const lines: string[] = [];
    const emit = (node: Record<string, any>, parentId?: string) => {
      const own: Record<string, unknown> = {};
      const children: Array<Record<string, any>> = [];
      for (const [key, value] of Object.entries(node)) {
        if (value && typeof value === 'object' && Array.isArray((value as any).edges)) children.push(...(value as any).edges.map((edge: any) => edge.node));
        else own[key] = value;
      }
      lines.push(JSON.stringify(parentId ? { ...own, __parentId: parentId } : own));
      for (const child of children) emit(child, node.id);
    };
    for (const connection of Object.values(result.data ?? {}) as any[]) for (const edge of connection.edges) emit(edge.node);
    const id = `gid://shopify/BulkOperation/${this.bulkOperations.length + 1}${randomBytes(3).toString('hex')}`;
    this.bulkOperations.push({ shop, id, query });
    this.bulkFiles.set(`/${idFromGid(id)}.jsonl`, lines.map((line) => `${line}\n`).join(''));
    return { bulkOperation: { id, status: 'CREATED' }, userErrors: [] };
  }
}

/** Where the fake keeps bulk operations' result files (Shopify's are signed storage URLs). */
const BULK_HOST = 'bulk-results.shopify-fake.test';

function idFromGid(gid: string): string {
  return gid.slice(gid.lastIndexOf('/') + 1);
}

export interface FakeDiscount {
  id: string;
  kind: 'basic' | 'free_shipping';
  anchor: string;
  input: Record<string, any>;
  codes: Map<string, { id: string; code: string }>;
  /** Orders that used it (Shopify's asyncUsageCount); a test sets it when the store's checkout would. */
  uses?: number;
}

export interface FakeStoreCreditTransaction {
  __typename: 'StoreCreditAccountCreditTransaction' | 'StoreCreditAccountDebitTransaction';
  id: string;
  kind: 'credit' | 'debit';
  amount: { amount: string; currencyCode: string };
  balanceAfterTransaction: { amount: string; currencyCode: string };
  createdAt: string;
  event: string;
  expiresAt: string | null;
  origin: null;
}

export interface FakeStoreCreditAccount {
  id: string;
  /** The customer's gid. */
  owner: string;
  currency: string;
  /** In cents. */
  balance: number;
  transactions: FakeStoreCreditTransaction[];
}

interface Bucket {
  maximum: number;
  available: number;
  restoreRate: number;
  at: number;
}

/**
 * Reads fields off the stored objects; a connection (or a list taking first/last) is paged by
 * its first/after arguments, with index cursors, as Shopify pages it.
 */
const paginatingResolver: GraphQLFieldResolver<any, unknown> = (source, args, context, info) => {
  const value = typeof source?.[info.fieldName] === 'function' ? source[info.fieldName](args, context, info) : source?.[info.fieldName];
  const items: unknown[] | null = Array.isArray(value) ? value : Array.isArray(value?.nodes) ? value.nodes : null;
  const first = typeof args.first === 'number' ? args.first : null;
  const connection = getNamedType(info.returnType).name.endsWith('Connection');
  // A bulk query asks for connections without first: all of it.
  if (!items || (first === null && !connection)) return value;
  const start = typeof args.after === 'string' ? Number(args.after) : 0;
  const page = first === null ? items.slice(start) : items.slice(start, start + first);
  const end = start + page.length;
  if (!connection) return page;
  return {
    nodes: page,
    edges: page.map((node, index) => ({ node, cursor: String(start + index + 1) })),
    pageInfo: { hasNextPage: end < items.length, hasPreviousPage: start > 0, endCursor: String(end), startCursor: String(start) },
  };
};

function operationName(query: unknown): string | null {
  return /(?:query|mutation)\s+(\w+)/.exec(String(query ?? ''))?.[1] ?? null;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

