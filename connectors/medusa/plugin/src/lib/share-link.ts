/**
 * The link an advocate shares, from the plugin's `storefrontUrl` option: a URL in which `{code}`
 * stands for the code (`https://shop.example.com/?ref={code}`); a URL without `{code}` gets the
 * code as `ref`. Without the option, the brand's store address on the referral service
 * (`store_url`, as the service's own share links) with `?ref=<CODE>`; null when neither is known.
 */
export function shareLinkFor(storefrontUrl: string | null, storeUrl: string | null, code: string): string | null {
  const template = storefrontUrl ?? storeUrl;
  if (!template) return null;
  if (template.includes('{code}')) return template.split('{code}').join(encodeURIComponent(code));
  const url = new URL(storefrontUrl ? template : template.endsWith('/') ? template : `${template}/`);
  url.searchParams.set('ref', code);
  return url.toString();
}
