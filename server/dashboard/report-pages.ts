import { advocateHistory, advocatesReport } from '../../core/reports/advocates-report';
import { activityFeed } from '../../core/reports/activity-feed';
import { overviewReport } from '../../core/reports/overview-report';
import { periodDays } from '../../core/reports/period';
import { productRevenue } from '../../core/reports/product-revenue';
import type { Ctx } from '../app-context';
import type { ConnectorParts } from '../http/connector';
import { csvMoney, sendCsv } from './csv-export';
import { CSV_MAX_ROWS, PER_PAGE, activityQuerySchema, advocatesQuerySchema, pathIdOf, periodOf, reportQuerySchema } from './dashboard-query';
import { renderPage } from './render-page';
import { advocatePanel, advocatesPanel } from './advocate-forms';

const viewerOf = (ctx: Ctx) => ctx.state.viewer!;

/** The period's query parameters as the page's links repeat them. */
function periodParams(query: { period: string; from?: string; to?: string }) {
  return query.period === 'custom' ? { period: query.period, from: query.from, to: query.to } : { period: query.period };
}

/** GET /dashboard: the period's totals, a chart per day and the program's settings. */
export async function overviewPage(ctx: Ctx): Promise<void> {
  const query = reportQuerySchema.parse(ctx.query);
  const period = periodOf(query);
  const { brand } = viewerOf(ctx);
  const report = await overviewReport(ctx.app.context.deps.db, brand.brand_id, period);
  const days = periodDays(period);
  if (query.format === 'csv') {
    return sendCsv(ctx, `overview-${days.from}-${days.to}`, [
      ['day', (d) => d.day],
      ['conversions', (d) => d.conversions],
      ['revenue', (d) => csvMoney(d.revenue, report.currency)],
      ['refunded', (d) => csvMoney(d.refunded, report.currency)],
      ['currency', () => report.currency],
    ], report.daily);
  }
  renderPage(ctx, 'overview', { title: 'Overview', section: '/dashboard', chart: true, report, brand, period, days, params: periodParams(query) });
}

/** GET /dashboard/advocates: searchable, paginated; ?format=csv exports every match. */
export async function advocatesPage(ctx: Ctx, refusal?: { status: number; message: string; form?: Record<string, string> }): Promise<void> {
  const query = advocatesQuerySchema.parse(ctx.query);
  const period = periodOf(query);
  const { brand } = viewerOf(ctx);
  const csv = query.format === 'csv';
  const page = await advocatesReport(ctx.app.context.deps.db, brand.brand_id, {
    period,
    search: query.q,
    page: csv ? 1 : query.page,
    perPage: csv ? CSV_MAX_ROWS : PER_PAGE,
  });
  const days = periodDays(period);
  if (csv) {
    return sendCsv(ctx, `advocates-${days.from}-${days.to}`, [
      ['advocate_id', (a) => a.advocate_id],
      ['first_name', (a) => a.first_name],
      ['last_name', (a) => a.last_name],
      ['email', (a) => a.email],
      ['codes', (a) => a.codes],
      ['conversions', (a) => a.conversions],
      ['revenue', (a) => csvMoney(a.revenue, page.currency)],
      ['balance', (a) => csvMoney(a.balance, page.currency)],
      ['pending', (a) => csvMoney(a.pending, page.currency)],
      ['owed', (a) => csvMoney(a.owed, page.currency)],
      ['currency', () => page.currency],
    ], page.rows);
  }
  const panel = await advocatesPanel(ctx, refusal);
  renderPage(ctx, 'advocates', { title: 'Advocates', section: '/dashboard/advocates', page, period, days, q: query.q ?? '', params: { ...periodParams(query), q: query.q }, ...panel }, refusal?.status);
}

/** GET /dashboard/advocates/:id: one advocate's reward history. */
export async function advocatePage(ctx: Ctx, id: string, refusal?: { status: number; message: string }): Promise<void> {
  const query = reportQuerySchema.parse(ctx.query);
  const advocateId = pathIdOf(id, 'advocate');
  const { brand } = viewerOf(ctx);
  const csv = query.format === 'csv';
  const history = await advocateHistory(ctx.app.context.deps.db, brand.brand_id, advocateId, csv ? 1 : query.page, csv ? CSV_MAX_ROWS : PER_PAGE);
  if (csv) {
    return sendCsv(ctx, `advocate-${id}-history`, [
      ['at', (e) => e.at.toISOString()],
      ['entry', (e) => e.kind],
      ['entry_label', (e) => e.entry],
      ['amount', (e) => csvMoney(e.amount, history.currency)],
      ['currency', () => history.currency],
      ['reward_status', (e) => e.reward_status],
      ['order_id', (e) => e.order_id],
      ['order_value', (e) => csvMoney(e.order_value, e.order_currency)],
      ['order_currency', (e) => e.order_currency],
      ['order_status', (e) => e.status],
    ], history.entries.rows);
  }
  const panel = await advocatePanel(ctx, advocateId, refusal);
  renderPage(ctx, 'advocate', { title: `${history.advocate.first_name} · Advocates`, section: '/dashboard/advocates', history, ...panel }, refusal?.status);
}

/** GET /dashboard/activity: visits, claims, conversions and refunds, filterable by kind. */
export async function activityPage(ctx: Ctx): Promise<void> {
  const query = activityQuerySchema.parse(ctx.query);
  const period = periodOf(query);
  const { brand } = viewerOf(ctx);
  const csv = query.format === 'csv';
  const page = await activityFeed(ctx.app.context.deps.db, brand.brand_id, {
    period,
    kinds: query.kind,
    page: csv ? 1 : query.page,
    perPage: csv ? CSV_MAX_ROWS : PER_PAGE,
  });
  const days = periodDays(period);
  if (csv) {
    return sendCsv(ctx, `activity-${days.from}-${days.to}`, [
      ['at', (item) => item.at.toISOString()],
      ['kind', (item) => item.kind],
      ['id', (item) => item.id],
      ['code', (item) => item.code],
      ['email', (item) => item.email],
      ['order_id', (item) => item.order_id],
      ['amount', (item) => csvMoney(item.amount, item.currency)],
      ['currency', (item) => item.currency],
      ['status_or_channel', (item) => item.detail],
    ], page.rows);
  }
  renderPage(ctx, 'activity', { title: 'Activity', section: '/dashboard/activity', page, period, days, kinds: query.kind, params: { ...periodParams(query), kind: query.kind } });
}

/** GET /dashboard/products: referred revenue by product, a table and a chart. */
export async function productsPage(ctx: Ctx): Promise<void> {
  const query = reportQuerySchema.parse(ctx.query);
  const period = periodOf(query);
  const { brand } = viewerOf(ctx);
  const { currency, rows } = await productRevenue(ctx.app.context.deps.db, brand.brand_id, period);
  const days = periodDays(period);
  if (query.format === 'csv') {
    return sendCsv(ctx, `products-${days.from}-${days.to}`, [
      ['product', (r) => r.product],
      ['sku', (r) => r.sku],
      ['names', (r) => r.names.join(' | ')],
      ['orders', (r) => r.orders],
      ['quantity', (r) => r.quantity],
      ['revenue', (r) => csvMoney(r.revenue, currency)],
      ['currency', () => currency],
    ], rows);
  }
  renderPage(ctx, 'products', { title: 'Revenue by product', section: '/dashboard/products', chart: true, rows, currency, period, days, params: periodParams(query) });
}

/** GET /dashboard/connections: each connector's section (Shopify, Medusa) and the outbound webhooks (webhook-pages.ts). */
export async function connectionsPage(ctx: Ctx, connectors: readonly ConnectorParts[], webhooks: Record<string, unknown>, status?: number): Promise<void> {
  const { brand } = viewerOf(ctx);
  const { db } = ctx.app.context.deps;
  const sections = [];
  for (const connector of connectors) {
    const section = await connector.dashboard?.connection?.(db, brand.brand_id);
    if (section) sections.push(section);
  }
  renderPage(ctx, 'connections', { title: 'Connections', section: '/dashboard/connections', sections, webhooks }, status);
}
