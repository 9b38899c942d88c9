import type { Knex } from 'knex';
import type { CustomerSubject } from '../../../core/customers/customer-subject';
import type { CustomerExport } from '../../../core/customers/export-customer';
import type { Executor } from '../../../core/db/transaction';
import { NotFound } from '../../../core/errors';

/** A webhook body we kept, exactly as Shopify sent it (text: its ids exceed 2^53). */
export interface ExportedDelivery {
  webhook_id: string;
  topic: string;
  received_at: Date;
  body: string;
}

/** What a customers/data_request is answered with: our records on the customer and the webhook bodies that carry them. */
export interface DataRequestExport extends CustomerExport {
  shopify_request_id: string | null;
  webhook_deliveries: ExportedDelivery[];
}

export interface DataRequestSummary {
  id: string;
  shop_domain: string;
  shopify_request_id: string | null;
  customer_email: string | null;
  created_at: Date;
}

/** Keeps the export of one customers/data_request delivery (once per delivery); returns its id. */
export async function saveDataRequest(
  trx: Knex.Transaction,
  request: { brand_id: string; shop_domain: string; webhook_id: string; export: DataRequestExport },
): Promise<string> {
  const row = {
    brand_id: request.brand_id,
    shop_domain: request.shop_domain,
    webhook_id: request.webhook_id,
    shopify_request_id: request.export.shopify_request_id,
    customer_email: request.export.customer_email,
    export: JSON.stringify(request.export),
  };
  const [saved] = await trx('shopify_data_requests')
    .insert(row)
    .onConflict(['brand_id', 'webhook_id'])
    .merge({ export: row.export })
    .returning('request_id');
  return String(saved.request_id);
}

const SUMMARY = ['request_id as id', 'shop_domain', 'shopify_request_id', 'customer_email', 'created_at'];

/** A brand's data requests, newest first, without their exports. */
export async function listDataRequests(db: Executor, brandId: string): Promise<DataRequestSummary[]> {
  const rows: DataRequestSummary[] = await db('shopify_data_requests').where({ brand_id: brandId }).select(SUMMARY).orderBy('request_id', 'desc');
  return rows.map((row) => ({ ...row, id: String(row.id) }));
}

/** One data request with its export, as the merchant hands it over. */
export async function getDataRequest(db: Executor, brandId: string, id: string): Promise<DataRequestSummary & { export: DataRequestExport }> {
  const row = await db('shopify_data_requests').where({ brand_id: brandId, request_id: id }).first([...SUMMARY, 'export']);
  if (!row) throw new NotFound(`no data request ${id} for brand ${brandId}`);
  return { ...row, id: String(row.id) };
}

/** Exports that hold the customer's data go when the customer is erased. */
export async function deleteSubjectDataRequests(trx: Knex.Transaction, brandId: string, subject: CustomerSubject): Promise<number> {
  const { email, order_ids: orderIds } = subject;
  const customerIds = subject.customer_ids ?? [];
  if (!email && orderIds.length === 0 && customerIds.length === 0) return 0;
  const deleted = await trx('shopify_data_requests')
    .where({ brand_id: brandId })
    .andWhere((where) => {
      if (email) where.orWhere({ customer_email: email }).orWhereRaw('position(? in lower(export::text)) > 0', [email]);
      for (const orderId of orderIds) where.orWhereRaw("export -> 'orders' @> jsonb_build_array(?::text)", [orderId]);
      for (const customerId of customerIds) where.orWhereRaw("export -> 'customer_ids' @> jsonb_build_array(?::text)", [customerId]);
    })
    .delete()
    .returning('request_id');
  return deleted.length;
}
