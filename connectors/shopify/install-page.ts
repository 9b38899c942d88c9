function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface InstallPageInput {
  shop: string;
  brandId: string;
  plan: string;
  /** Only on a first install: the key is shown here once and never again. */
  apiKey: string | null;
}

/** The page a merchant lands on after installing: the brand ID and, once, its first API key. */
export function installPage(input: InstallPageInput): string {
  const key = input.apiKey
    ? `<p>For a developer connecting another system: your API key, shown <strong>once</strong> (copy it now; the dashboard's <em>API keys</em> page makes more):</p>
  <pre id="api-key">${escapeHtml(input.apiKey)}</pre>`
    : `<p>This shop was installed before: its program and API keys are unchanged. A lost key is replaced on the dashboard's <em>API keys</em> page.</p>`;
  const webhooks = `<p>Paid orders, refunds and cancellations reach the program by themselves: there is nothing to set up for them.
  Open the app from <em>Apps</em> in your Shopify admin to set up your program and follow it.</p>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Referral tracking installed</title>
<style>body{font-family:system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
pre,code{background:#f4f4f4;padding:.15rem .35rem;border-radius:4px}pre{padding:.75rem;overflow-x:auto}.warning{color:#a00}</style></head>
<body>
  <h1>Referral tracking is installed on ${escapeHtml(input.shop)}</h1>
  <p>Brand ID: <code id="brand-id">${escapeHtml(input.brandId)}</code> (plan: ${escapeHtml(input.plan)})</p>
  ${key}
  ${webhooks}
  <p>Send the brand ID and the key as <code>X-Brand-ID</code> and <code>X-API-Key</code> to call the REST API.</p>
</body>
</html>
`;
}
