import { Eta } from 'eta';
import { counted } from '../../core/counted';
import { inWords } from './words';
import { type PlanFeature, planSummary } from '../../core/brands/plan-features';
import { currencyExponent } from '../../core/currency';
import type { Ctx } from '../app-context';
import type { EmbeddedSession } from '../http/connector';
import { assetUrl } from './assets';
import { dashboardDir } from './dashboard-files';
import type { DashboardViewer } from './dashboard-session';
import { setPageSecurityHeaders } from './security-headers';

// autoEscape: every <%= %> is HTML-escaped; raw output (<%~ %>) is used only for our own markup
// and for JSON made safe by jsonForScript.
const eta = new Eta({ views: dashboardDir('views'), autoEscape: true, cache: true });

const moneyFormats = new Map<number, Intl.NumberFormat>();
/**
 * An amount with its currency's decimals (JPY none, USD two, KWD three) and, unless `withCode` is
 * false (a table whose header names the currency), its code: "1,234.50 USD".
 */
export function formatMoney(value: number, currency?: string, withCode = true): string {
  const exponent = currency ? currencyExponent(currency) : 2;
  let format = moneyFormats.get(exponent);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { minimumFractionDigits: exponent, maximumFractionDigits: exponent });
    moneyFormats.set(exponent, format);
  }
  return currency && withCode ? `${format.format(value)} ${currency}` : format.format(value);
}
const countFormat = new Intl.NumberFormat('en-US');
/** A count as every page writes it (1,280). */
export const formatCount = (value: number) => countFormat.format(value);

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);

/** The embedded admin's own query parameters, kept on every link so App Bridge keeps its context. */
function embeddedParams(ctx: Ctx, embedded: EmbeddedSession | null): Record<string, string> {
  if (!embedded) return {};
  const kept: Record<string, string> = { embedded: '1', shop: embedded.shop };
  if (typeof ctx.query.host === 'string') kept.host = ctx.query.host;
  return kept;
}

/** The helpers every template gets. */
function helpers(ctx: Ctx, viewer: DashboardViewer | null) {
  const kept = embeddedParams(ctx, viewer?.embedded ?? null);
  return {
    /** With a currency: its decimals and its code ("245.50 USD", "1,500 JPY"); without, two decimals. */
    money: (value: number, currency?: string) => formatMoney(value, currency),
    /** For a table column whose header names the currency ("Revenue (JPY)"): its decimals, no code. */
    amount: (value: number, currency: string) => formatMoney(value, currency, false),
    count: formatCount,
    /** A count with its noun: "1 advocate", "2 advocates". */
    counted,
    /** A status, kind or reason token in a merchant's words (words.ts). */
    say: inWords,
    /** Which of these features the brand's plan lacks, in words (plan-note.eta says so on the page). */
    planMissing: (features: PlanFeature[]) => (viewer ? planSummary(viewer.brand.plan).missing.filter((missing) => features.includes(missing.feature)) : []),
    time: (value: Date) => value.toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
    asset: assetUrl,
    /** A dashboard URL with these query parameters (empty ones dropped) and the embedded context. */
    link: (path: string, params: Record<string, string | number | undefined | null | string[]> = {}) => {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries({ ...params, ...kept })) {
        if (Array.isArray(value)) value.forEach((item) => query.append(name, item));
        else if (value !== undefined && value !== null && value !== '') query.set(name, String(value));
      }
      const text = query.toString();
      return text ? `${path}?${text}` : path;
    },
    /** A message as HTML: escaped, with its `command` spans set as <code>. */
    withCode: (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>'),
    /** JSON for a <script type="application/json"> block: `<` escaped so no string can close it. */
    jsonForScript: (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c'),
    kept,
  };
}

export type PageHelpers = ReturnType<typeof helpers>;

/** Renders a page of the dashboard in its layout, with its security headers. */
export function renderPage(ctx: Ctx, view: string, data: Record<string, unknown>, status = 200): void {
  const viewer = ctx.state.viewer ?? null;
  setPageSecurityHeaders(ctx, viewer?.embedded ?? null);
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = eta.render(view, { ...data, viewer, path: ctx.path, h: helpers(ctx, viewer) });
}
