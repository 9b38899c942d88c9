import Router from '@koa/router';
import { findBrand } from '../../core/brands/brand';
import { mailPhrases } from '../../core/mail/default-templates';
import { escapeHtml } from '../../core/mail/render-mail';
import { suppressAddress } from '../../core/mail/suppressions';
import { readUnsubscribeToken } from '../../core/mail/unsubscribe-token';
import type { AppContext, AppState, Ctx } from '../app-context';

/** A small page of its own (no dashboard session): nothing but its form may run or load. */
function page(ctx: Ctx, status: number, language: string, title: string, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.body = `<!doctype html>
<html lang="${escapeHtml(language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;background:#f4f4f5;color:#1f2937;margin:0;padding:48px 16px}
main{max-width:480px;margin:0 auto;background:#fff;border-radius:8px;padding:32px}h1{font-size:20px;margin:0 0 16px}
button{background:#111827;color:#fff;border:0;border-radius:6px;padding:12px 20px;font-size:16px;font-weight:600;cursor:pointer}</style>
</head><body><main>${body}</main></body></html>`;
}

/** The token's brand and address, or null (a page saying the link is not valid has been written). */
async function subjectOf(ctx: Ctx & { params: Record<string, string> }) {
  const { db, config } = ctx.app.context.deps;
  const subject = readUnsubscribeToken(config.keyEncryptionSecret, ctx.params.token ?? '');
  const brand = subject ? await findBrand(db, subject.brandId) : null;
  if (!subject || !brand) {
    const phrases = mailPhrases('en');
    page(ctx, 404, 'en', phrases.unsubscribe, `<p>${escapeHtml(phrases.unsubscribeInvalid)}</p>`);
    return null;
  }
  return { ...subject, brand, phrases: mailPhrases(brand.language) };
}

const fillIn = (phrase: string, email: string, brand: string) => escapeHtml(phrase.replace('{email}', email).replace('{brand}', brand));

/**
 * The unsubscribe link of every program email (docs/merchants/program-emails.md). GET asks (a link scanner
 * that opens it changes nothing); POST unsubscribes: the mail client's one-click POST (RFC 8058,
 * body `List-Unsubscribe=One-Click`) or the page's button. The signed token is the authority: no
 * session, and no other address's link can be made from it.
 */
export function unsubscribeRoutes(): Router<AppState, AppContext> {
  const router = new Router<AppState, AppContext>();
  router.get('/mail/unsubscribe/:token', async (ctx) => {
    const subject = await subjectOf(ctx);
    if (!subject) return;
    const { phrases, brand, email } = subject;
    page(
      ctx,
      200,
      brand.language,
      phrases.unsubscribe,
      `<h1>${escapeHtml(brand.name)}</h1><p>${fillIn(phrases.unsubscribeQuestion, email, brand.name)}</p>` +
        `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">${escapeHtml(phrases.unsubscribeButton)}</button></form>`,
    );
  });
  router.post('/mail/unsubscribe/:token', async (ctx) => {
    const subject = await subjectOf(ctx);
    if (!subject) return;
    const { phrases, brand, email } = subject;
    await suppressAddress(ctx.app.context.deps.db, brand.brand_id, email, 'unsubscribed');
    ctx.app.context.deps.logger.info({ brand_id: brand.brand_id }, 'an address unsubscribed from program emails');
    page(ctx, 200, brand.language, phrases.unsubscribe, `<h1>${escapeHtml(brand.name)}</h1><p>${fillIn(phrases.unsubscribeDone, email, brand.name)}</p>`);
  });
  return router;
}
