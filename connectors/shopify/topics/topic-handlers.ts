import { handleCustomersDataRequest } from '../privacy/customers-data-request';
import { handleCustomersRedact } from '../privacy/customers-redact';
import { handleShopRedact } from '../privacy/shop-redact';
import { handleAppUninstalled } from './app-uninstalled';
import { handleOrderTransactionsCreate } from './order-transactions-create';
import { handleOrdersCancelled } from './orders-cancelled';
import { handleOrdersPaid } from './orders-paid';
import { handleRefundsCreate } from './refunds-create';
import type { TopicHandler } from './topic-handler';

/** Every webhook topic we process, by X-Shopify-Topic. */
export const TOPIC_HANDLERS: Record<string, TopicHandler> = {
  'orders/paid': handleOrdersPaid,
  'refunds/create': handleRefundsCreate,
  'orders/cancelled': handleOrdersCancelled,
  'order_transactions/create': handleOrderTransactionsCreate,
  'app/uninstalled': handleAppUninstalled,
  'customers/data_request': handleCustomersDataRequest,
  'customers/redact': handleCustomersRedact,
  'shop/redact': handleShopRedact,
};
