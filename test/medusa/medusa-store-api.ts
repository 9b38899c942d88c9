/**
 * Drives a running Medusa 2.21 store over its own HTTP APIs, as a merchant's admin and a shopper
 * would: a region paying with the system provider, a product, shipping, promotion codes, carts
 * completed into orders, payments captured and refunded, orders canceled.
 */

type Json = Record<string, any>;

export interface StoreCatalog {
  regionId: string;
  salesChannelId: string;
  publishableKey: string;
  variantId: string;
}

export interface PlacedOrder {
  orderId: string;
  paymentId: string;
}

export class MedusaStoreApi {
  private token = '';
  private catalog: StoreCatalog | null = null;

  constructor(readonly baseUrl: string) {}

  private async call(method: string, path: string, body?: Json, headers: Record<string, string> = {}): Promise<Json> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`Medusa ${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : {};
  }

  private admin(method: string, path: string, body?: Json): Promise<Json> {
    return this.call(method, path, body, { authorization: `Bearer ${this.token}` });
  }

  /** A store route, as a guest or (with their bearer token) as a logged-in customer. */
  private store(method: string, path: string, body?: Json, customerToken?: string): Promise<Json> {
    return this.call(method, path, body, { 'x-publishable-api-key': this.catalog!.publishableKey, ...(customerToken ? { authorization: `Bearer ${customerToken}` } : {}) });
  }

  async logIn(email: string, password: string): Promise<void> {
    this.token = (await this.call('POST', '/auth/user/emailpass', { email, password })).token;
  }

  /**
   * The store's currencies: `defaultCurrency` is the default (what the plugin compares with the
   * brand's currency), `others` supported too.
   */
  async setStoreCurrencies(defaultCurrency: string, others: string[] = []): Promise<void> {
    const { stores } = await this.admin('GET', '/admin/stores?fields=id');
    const supported = [{ currency_code: defaultCurrency, is_default: true }, ...others.map((currency_code) => ({ currency_code, is_default: false }))];
    await this.admin('POST', `/admin/stores/${stores[0].id}`, { supported_currencies: supported });
  }

  /**
   * The store selling in EUR (its default currency, the brand's, as docs/merchants/medusa.md tells a merchant),
   * a region in EUR paying with pp_system_default, one product at 100.00 with free stock, flat
   * shipping 10.00.
   */
  async setUpCatalog(): Promise<StoreCatalog> {
    const tag = Date.now().toString(36); // names Medusa keeps unique
    await this.setStoreCurrencies('eur');
    const { sales_channel } = await this.admin('POST', '/admin/sales-channels', { name: 'Web' });
    const { api_key } = await this.admin('POST', '/admin/api-keys', { title: 'Storefront', type: 'publishable' });
    await this.admin('POST', `/admin/api-keys/${api_key.id}/sales-channels`, { add: [sales_channel.id] });
    const { region } = await this.admin('POST', '/admin/regions', { name: 'Europe', currency_code: 'eur', countries: ['de'], payment_providers: ['pp_system_default'] });

    const { stock_location } = await this.admin('POST', '/admin/stock-locations', { name: 'Warehouse' });
    await this.admin('POST', `/admin/stock-locations/${stock_location.id}/sales-channels`, { add: [sales_channel.id] });
    await this.admin('POST', `/admin/stock-locations/${stock_location.id}/fulfillment-providers`, { add: ['manual_manual'] });
    const withSet = await this.admin('POST', `/admin/stock-locations/${stock_location.id}/fulfillment-sets?fields=*fulfillment_sets`, { name: `Shipping ${tag}`, type: 'shipping' });
    const fulfillmentSetId = withSet.stock_location.fulfillment_sets[0].id;
    const withZone = await this.admin('POST', `/admin/fulfillment-sets/${fulfillmentSetId}/service-zones?fields=*service_zones`, {
      name: 'Germany',
      geo_zones: [{ type: 'country', country_code: 'de' }],
    });
    const serviceZoneId = withZone.fulfillment_set.service_zones[0].id;
    const { shipping_profile } = await this.admin('POST', '/admin/shipping-profiles', { name: `Default ${tag}`, type: 'default' });
    await this.admin('POST', '/admin/shipping-options', {
      name: 'Standard',
      service_zone_id: serviceZoneId,
      shipping_profile_id: shipping_profile.id,
      provider_id: 'manual_manual',
      price_type: 'flat',
      type: { label: 'Standard', description: 'Standard', code: 'standard' },
      prices: [{ currency_code: 'eur', amount: 10 }],
    });

    const { product } = await this.admin('POST', '/admin/products', {
      title: 'Black tee',
      status: 'published',
      shipping_profile_id: shipping_profile.id,
      options: [{ title: 'Size', values: ['M'] }],
      variants: [{ title: 'M', sku: `TEE-${tag}`, options: { Size: 'M' }, manage_inventory: false, prices: [{ currency_code: 'eur', amount: 100 }] }],
      sales_channels: [{ id: sales_channel.id }],
    });
    this.catalog = { regionId: region.id, salesChannelId: sales_channel.id, publishableKey: api_key.token, variantId: product.variants[0].id };
    return this.catalog;
  }

  /** A promotion code taking a fixed amount off the order. */
  async createPromotion(code: string, amount: number): Promise<void> {
    await this.admin('POST', '/admin/promotions', {
      code,
      type: 'standard',
      status: 'active',
      application_method: { type: 'fixed', target_type: 'order', value: amount, currency_code: 'eur', allocation: 'across' },
    });
  }

  /** POST /admin/referral-promotions/sync: the plugin's promotion sync, now (its job runs every minute). */
  async syncReferralPromotions(): Promise<Json> {
    return (await this.admin('POST', '/admin/referral-promotions/sync', {})).referral_promotion_sync;
  }

  /** The promotion with this code, as Medusa's admin API shows it (null when there is none). */
  async promotion(code: string): Promise<Json | null> {
    const fields = 'id,code,status,is_automatic,type,limit,used,metadata,campaign_id,*application_method,*rules,*rules.values,*campaign,*campaign.budget';
    const { promotions } = await this.admin('GET', `/admin/promotions?code=${encodeURIComponent(code)}&fields=${fields}`);
    return (promotions as Json[]).find((promotion) => promotion.code === code) ?? null;
  }

  /**
   * A shopper's cart of `quantity` tees to which the code is applied (POST /store/carts/:id/promotions):
   * the discount it got and the codes the cart kept (Medusa may also refuse the code: `refused`).
   * With a customer's token, the cart is that logged-in customer's.
   */
  async cartWithCode(email: string, code: string, quantity: number, customerToken?: string): Promise<{ discountTotal: number; codes: string[]; refused: string | null }> {
    const catalog = this.catalog!;
    const { cart } = await this.store('POST', '/store/carts', { region_id: catalog.regionId, sales_channel_id: catalog.salesChannelId, email }, customerToken);
    await this.store('POST', `/store/carts/${cart.id}/line-items`, { variant_id: catalog.variantId, quantity }, customerToken);
    let refused: string | null = null;
    try {
      await this.store('POST', `/store/carts/${cart.id}/promotions`, { promo_codes: [code] }, customerToken);
    } catch (error) {
      refused = (error as Error).message;
    }
    const { cart: after } = await this.store('GET', `/store/carts/${cart.id}?fields=id,discount_total,*promotions`, undefined, customerToken);
    return { discountTotal: Number(after.discount_total ?? 0), codes: (after.promotions ?? []).map((promotion: Json) => promotion.code), refused };
  }

  /**
   * A shopper buys `quantity` tees with the code and pays with the system provider (authorized, not
   * captured); with a customer's token, as that logged-in customer.
   */
  async placeOrder(email: string, code: string | null, quantity = 2, customerToken?: string): Promise<PlacedOrder> {
    const catalog = this.catalog!;
    const store = (method: string, path: string, body?: Json) => this.store(method, path, body, customerToken);
    const { cart } = await store('POST', '/store/carts', { region_id: catalog.regionId, sales_channel_id: catalog.salesChannelId, email });
    await store('POST', `/store/carts/${cart.id}/line-items`, { variant_id: catalog.variantId, quantity });
    const address = { first_name: 'Bea', last_name: 'Buyer', address_1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country_code: 'de' };
    await store('POST', `/store/carts/${cart.id}`, { shipping_address: address, billing_address: address });
    if (code) await store('POST', `/store/carts/${cart.id}/promotions`, { promo_codes: [code] });
    const { shipping_options } = await store('GET', `/store/shipping-options?cart_id=${cart.id}`);
    await store('POST', `/store/carts/${cart.id}/shipping-methods`, { option_id: shipping_options[0].id });
    const { payment_collection } = await store('POST', '/store/payment-collections', { cart_id: cart.id });
    await store('POST', `/store/payment-collections/${payment_collection.id}/payment-sessions`, { provider_id: 'pp_system_default' });
    const completed = await store('POST', `/store/carts/${cart.id}/complete`);
    if (completed.type !== 'order') throw new Error(`the cart did not become an order: ${JSON.stringify(completed).slice(0, 500)}`);
    const { order } = await this.admin('GET', `/admin/orders/${completed.order.id}?fields=id,total,*payment_collections.payments`);
    return { orderId: order.id, paymentId: order.payment_collections[0].payments[0].id };
  }

  async capture(order: PlacedOrder): Promise<void> {
    await this.admin('POST', `/admin/payments/${order.paymentId}/capture`, {});
  }

  async refund(order: PlacedOrder, amount: number): Promise<void> {
    await this.admin('POST', `/admin/payments/${order.paymentId}/refund`, { amount });
  }

  async cancel(order: PlacedOrder): Promise<void> {
    await this.admin('POST', `/admin/orders/${order.orderId}/cancel`, {});
  }

  /** The plugin's admin route: deliveries the referral service has not accepted (pending, rejected). */
  async referralDeliveries(): Promise<Json[]> {
    return (await this.admin('GET', '/admin/referral-deliveries')).referral_deliveries;
  }

  /** POST /admin/referral-deliveries/:id/retry: its status and answer (`authenticated: false` sends no token). */
  async retryReferralDelivery(id: string, authenticated = true): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${this.baseUrl}/admin/referral-deliveries/${encodeURIComponent(id)}/retry`, {
      method: 'POST',
      headers: authenticated ? { authorization: `Bearer ${this.token}` } : {},
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : {} };
  }

  /**
   * A shopper registers an account as Medusa's storefront does (emailpass: register, create the
   * customer with the registration token, log in) and gets the customer's bearer token.
   */
  async registerCustomer(email: string, password: string, firstName: string): Promise<string> {
    const { token: registration } = await this.call('POST', '/auth/customer/emailpass/register', { email, password });
    await this.call('POST', '/store/customers', { email, first_name: firstName, last_name: 'Shopper' }, { authorization: `Bearer ${registration}`, 'x-publishable-api-key': this.catalog!.publishableKey });
    return (await this.call('POST', '/auth/customer/emailpass', { email, password })).token;
  }

  /** The plugin's store routes (/store/referrals/…) with the publishable key and, when given, the customer's bearer token: status and body. */
  async referrals(method: 'GET' | 'POST', path: 'join' | 'me', customerToken: string | null, body?: Json): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${this.baseUrl}/store/referrals/${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        'x-publishable-api-key': this.catalog!.publishableKey,
        ...(customerToken ? { authorization: `Bearer ${customerToken}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : {} };
  }

  /** The order as the admin API shows it: total, and what was paid and refunded. */
  async orderTotals(order: PlacedOrder): Promise<Json> {
    return (await this.admin('GET', `/admin/orders/${order.orderId}?fields=id,total,status,summary`)).order;
  }
}
