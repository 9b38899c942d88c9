import { z } from 'zod';
import { listApiKeys, publishableKeys } from '../../core/brands/api-keys';
import { inTransaction } from '../../core/db/transaction';
import { issueApiKey, withdrawApiKey } from '../../core/program/merchant-changes';
import type { Ctx } from '../app-context';
import { publicUrlOf } from '../config';
import { requireConfirmation } from './confirmation';
import { UUID_PATTERN } from '../middleware/authenticate-api-key';
import { createApiKeySchema } from '../schemas/program-request';
import { runForm, seeOther } from './form-actions';
import { renderPage } from './render-page';
import { flashSecret, takeFlashedSecret } from './secret-flash';

const PAGE = '/dashboard/keys';
const noticeSchema = z.object({ created: z.string().max(100).optional().catch(undefined), revoked: z.string().max(100).optional().catch(undefined) });

/** The status line after a revoke: the link names a key id, and only one of the brand's own revoked keys is named back. */
function revokedNotice(keys: Array<{ key_id: string; key_prefix: string; revoked_at: string | null }>, keyId: string | undefined): string | null {
  const key = keys.find((candidate) => candidate.key_id === keyId && candidate.revoked_at !== null);
  return key ? `Key ${key.key_prefix} is revoked: requests with it are refused from now on.` : null;
}

/** GET /dashboard/keys: the brand's API keys (prefix, label, when made and revoked); a new key is shown here once. */
export async function keysPage(ctx: Ctx, answer: { refusal?: { status: number; message: string }; shown?: { url: string; secret: string } } = {}): Promise<void> {
  const { refusal, shown } = answer;
  const { brand } = ctx.state.viewer!;
  const notice = noticeSchema.parse(ctx.query);
  const created = shown ?? takeFlashedSecret(ctx, brand.brand_id, notice.created, PAGE);
  const { db, config } = ctx.app.context.deps;
  const keys = await listApiKeys(db, brand.brand_id);
  // The storefront's keys are public: shown in full, each with the tag to paste into the store's pages.
  const storefront = (await publishableKeys(db, brand.brand_id, config.keyEncryptionSecret)).map((key) => ({
    ...key,
    snippet: `<script src="${publicUrlOf(config)}/referrals.js" data-brand="${brand.brand_id}" data-key="${key.api_key}" async></script>`,
  }));
  renderPage(
    ctx,
    'keys',
    { title: 'API keys', section: PAGE, keys, storefront, created, notice: revokedNotice(keys, notice.revoked), refusal: refusal?.message ?? null },
    refusal?.status ?? (shown ? 201 : 200),
  );
}

/** POST /dashboard/keys: a new key, shown once on the page the form redirects to. */
export async function createKeyForm(ctx: Ctx, form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      const { label, kind } = createApiKeySchema.parse({ label: form.get('label') || undefined, kind: form.get('kind') || undefined });
      const { db, config } = ctx.app.context.deps;
      const viewer = ctx.state.viewer!;
      const key = await inTransaction(db, (trx) => issueApiKey(trx, viewer.brand.brand_id, config.keyEncryptionSecret, label ?? null, viewer.actor, kind));
      const shown = { brand_id: viewer.brand.brand_id, id: key.key_id, url: label ?? key.key_prefix, secret: key.api_key };
      // Inside the Shopify admin there is no cookie to carry it across a redirect: the answer is the page itself, 201.
      if (viewer.embedded) return keysPage(ctx, { shown });
      flashSecret(ctx, shown, PAGE);
      seeOther(ctx, PAGE, { created: key.key_id });
    },
    (status, message) => keysPage(ctx, { refusal: { status, message } }),
  );
}

/** POST /dashboard/keys/:id/revoke: refused from the next request on, in every process. */
export async function revokeKeyForm(ctx: Ctx, keyId: string, form: URLSearchParams): Promise<void> {
  await runForm(
    ctx,
    form,
    async () => {
      if (!UUID_PATTERN.test(keyId)) throw new z.ZodError([{ code: 'custom', path: ['key'], message: 'key must be a key id', input: keyId }]);
      requireConfirmation(form, 'Yes, revoke this key');
      const viewer = ctx.state.viewer!;
      const key = await inTransaction(ctx.app.context.deps.db, (trx) => withdrawApiKey(trx, viewer.brand.brand_id, keyId, viewer.actor));
      seeOther(ctx, PAGE, { revoked: key.key_id });
    },
    (status, message) => keysPage(ctx, { refusal: { status, message } }),
  );
}
