import type { SubscriberArgs, SubscriberConfig } from '@medusajs/framework';
import type { MedusaResponse } from '@medusajs/framework/http';
import type { CreatePromotionDTO, MedusaContainer } from '@medusajs/framework/types';
import type { FakeStoreCreditModule } from './fake-store-credit';
import { InMemoryDeliveryStore } from './in-memory-delivery-store';
import { type OrderState, orderGraph, paymentCollectionIdOf, paymentIdOf } from './order-graphs';

/** A plugin subscriber's module: its handler and the event it listens to. */
export interface SubscriberModule {
  default: (args: SubscriberArgs<{ id: string }>) => Promise<void>;
  config: SubscriberConfig;
}

interface GraphQuery {
  entity: string;
  fields: string[];
  filters?: Record<string, unknown>;
}

/**
 * A stand-in for the Medusa container: `query.graph` answers from order states the test changes
 * between events, returning only the fields asked for (so a field the plugin forgets to read is
 * missing, as in Medusa), `logger` keeps what was logged, and `referrals` is the plugin's module
 * (its options, its deliveries) as Medusa would register it. The store (`entity: 'store'`) sells in
 * `storeCurrencies`.
 */
export class FakeMedusaContainer {
  readonly deliveries: InMemoryDeliveryStore;

  constructor(pluginOptions: Record<string, unknown>) {
    this.deliveries = new InMemoryDeliveryStore(pluginOptions);
  }

  readonly orders = new Map<string, OrderState>();
  /** The store's currencies (Store module), as `query.graph({ entity: 'store' })` reads them: EUR by default. */
  storeCurrencies: Array<{ currency_code: string; is_default: boolean }> = [{ currency_code: 'eur', is_default: true }];
  /** Customers (Customer module), as `query.graph({ entity: 'customer', filters: { id } })` reads them. */
  readonly customers = new Map<string, { id: string; email: string; first_name: string | null; last_name: string | null; has_account: boolean }>();
  /** Promotions (Promotion module) by code, as createPromotionsWorkflow (fakePromotionWorkflows) made them. */
  readonly promotions = new Map<string, CreatePromotionDTO & { id: string; used: number }>();
  /** Set: the promotion workflow refuses with this message, as Medusa refuses invalid data. */
  refusePromotions: string | null = null;
  /** Set: deletePromotionsWorkflow refuses with this message (Medusa down mid-run, say). */
  refuseDeletes: string | null = null;
  /** The ids deletePromotionsWorkflow was run with, in order. */
  readonly deletedPromotionIds: string[] = [];
  /** Set by a test that wants it: the Store Credit Module (fake-store-credit.ts), resolved as `store_credit`; none by default. */
  storeCredit: FakeStoreCreditModule | null = null;
  readonly queries: GraphQuery[] = [];
  readonly logs: Array<{ level: 'info' | 'warn' | 'error'; message: string }> = [];

  private readonly query = {
    graph: async (query: GraphQuery) => {
      this.queries.push(query);
      return { data: this.answer(query).map((row) => project(row, query.fields)) };
    },
  };

  private readonly logger = {
    info: (message: string) => this.logs.push({ level: 'info', message }),
    warn: (message: string) => this.logs.push({ level: 'warn', message }),
    error: (message: string) => this.logs.push({ level: 'error', message }),
  };

  /** Typed as Medusa's container, which the subscribers are handed; it answers `query` and `logger`. */
  get container(): MedusaContainer {
    const resolve = (key: string) => {
      if (key === 'query') return this.query;
      if (key === 'logger') return this.logger;
      if (key === 'referrals') return this.deliveries;
      if (key === 'store_credit' && this.storeCredit) return this.storeCredit;
      throw new Error(`the fake container has no ${key}`);
    };
    const container = { resolve } as unknown as MedusaContainer;
    owners.set(container, this);
    return container;
  }

  /** The fake behind a container it handed out (the promotion workflow is given only the container). */
  static of(container: MedusaContainer): FakeMedusaContainer {
    return owners.get(container)!;
  }

  save(state: OrderState): void {
    this.orders.set(state.id, state);
  }

  /** Medusa's event bus calling `subscriber` about `order` as it stands now (a payment event names the order's payment). */
  async emit(subscriber: SubscriberModule, order: OrderState): Promise<void> {
    this.save(order);
    const id = subscriber.config.event === 'payment.captured' || subscriber.config.event === 'payment.refunded' ? paymentIdOf(order.id) : order.id;
    // Medusa 2.21 hands a plugin's subscribers empty options: they must come from the module.
    await subscriber.default({ event: { name: subscriber.config.event as string, data: { id } }, container: this.container, pluginOptions: {} });
  }

  private answer(query: GraphQuery): unknown[] {
    const id = query.filters?.id;
    if (query.entity === 'order') {
      const state = typeof id === 'string' ? this.orders.get(id) : undefined;
      return state ? [orderGraph(state)] : [];
    }
    if (query.entity === 'store') {
      return [{ id: 'store_01', name: 'Medusa Store', supported_currencies: this.storeCurrencies.map((currency, index) => ({ id: `stocur_${index}`, ...currency })) }];
    }
    if (query.entity === 'customer') {
      const email = query.filters?.email;
      if (email !== undefined) return [...this.customers.values()].filter((customer) => [email].flat().includes(customer.email));
      const customer = typeof id === 'string' ? this.customers.get(id) : undefined;
      return customer ? [customer] : [];
    }
    if (query.entity === 'promotion') {
      const codes = [query.filters?.code].flat();
      return [...this.promotions.values()].filter((promotion) => codes.includes(promotion.code));
    }
    if (query.entity === 'payment') {
      const order = [...this.orders.values()].find((state) => paymentIdOf(state.id) === id);
      return order ? [{ id, payment_collection_id: paymentCollectionIdOf(order.id) }] : [];
    }
    if (query.entity === 'order_payment_collection') {
      const collection = query.filters?.payment_collection_id;
      const order = [...this.orders.values()].find((state) => paymentCollectionIdOf(state.id) === collection);
      return order ? [{ order: { id: order.id } }] : [];
    }
    throw new Error(`the fake query.graph knows no entity ${query.entity}`);
  }
}

const owners = new WeakMap<object, FakeMedusaContainer>();

/**
 * Medusa's promotion workflows (@medusajs/medusa/core-flows, not installed in this repository) as the
 * plugin calls them, writing to the fake of the container they are run with: a test hands it to
 * `jest.doMock('@medusajs/medusa/core-flows', () => fakePromotionWorkflows, { virtual: true })`.
 */
export const fakePromotionWorkflows = {
  createPromotionsWorkflow: (container: MedusaContainer) => ({
    async run({ input }: { input: { promotionsData: CreatePromotionDTO[] } }) {
      const fake = FakeMedusaContainer.of(container);
      if (fake.refusePromotions) throw new Error(fake.refusePromotions);
      const result = input.promotionsData.map((data) => {
        if (fake.promotions.has(data.code)) throw new Error(`Promotion with code: ${data.code}, already exists.`);
        const promotion = { ...data, id: `promo_${fake.promotions.size + 1}_${data.code}`, used: 0 };
        fake.promotions.set(data.code, promotion);
        return promotion;
      });
      return { result };
    },
  }),
  /** Medusa soft-deletes: the promotion is gone from query.graph; an id it does not have is no error. */
  deletePromotionsWorkflow: (container: MedusaContainer) => ({
    async run({ input }: { input: { ids: string[] } }) {
      const fake = FakeMedusaContainer.of(container);
      if (fake.refuseDeletes) throw new Error(fake.refuseDeletes);
      fake.deletedPromotionIds.push(...input.ids);
      for (const [code, promotion] of fake.promotions) if (input.ids.includes(promotion.id)) fake.promotions.delete(code);
      return { result: undefined };
    },
  }),
};

/** Keeps only the dotted field paths asked for; lists are projected element by element. */
function project(source: unknown, fields: string[]): unknown {
  if (Array.isArray(source)) return source.map((element) => project(element, fields));
  if (source === null || typeof source !== 'object') return source;
  const nested = new Map<string, string[]>();
  for (const field of fields) {
    const [head, ...rest] = field.split('.');
    const paths = nested.get(head!) ?? [];
    if (rest.length > 0) paths.push(rest.join('.'));
    nested.set(head!, paths);
  }
  const result: Record<string, unknown> = {};
  for (const [key, paths] of nested) {
    if (!(key in source)) continue;
    const value = (source as Record<string, unknown>)[key];
    // A leaf (an amount may be a BigNumber object) is returned whole.
    result[key] = paths.length === 0 ? value : project(value, paths);
  }
  return result;
}

/** A MedusaResponse that keeps what a route sent: its status (200 unless set) and JSON body. */
export function recordingResponse(): { res: MedusaResponse; sent: { status: number; body: any } } {
  const sent = { status: 200, body: undefined as any };
  const res = {
    status(code: number) {
      sent.status = code;
      return res;
    },
    json(body: unknown) {
      sent.body = body;
      return res;
    },
  };
  return { res: res as unknown as MedusaResponse, sent };
}
