/** When an order counts as a conversion: once money was captured (default), or once it is placed. */
export type ConversionTrigger = 'captured' | 'placed';

/** The options a merchant gives the plugin in medusa-config.ts. */
export interface ReferralPluginOptions {
  /** Base URL of the referral service, e.g. https://referrals.example.com */
  serviceUrl: string;
  /** The brand's ID (UUID), sent as X-Brand-ID. */
  brandId: string;
  /**
   * One of the brand's API keys: it signs every delivery (HMAC-SHA256), never sent with one; it is
   * sent only as X-API-Key to read the brand's currency (GET /api/v1/brand, currency-check.ts).
   */
  apiKey: string;
  conversionTrigger: ConversionTrigger;
  /** First retry delay; each further retry doubles it, up to retryMaxDelayMs. */
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /** How long one delivery attempt may take before it counts as failed. */
  requestTimeoutMs: number;
  /**
   * The advocates' share link: a storefront URL in which `{code}` stands for the referral code
   * (`https://shop.example.com/?ref={code}`; without `{code}`, the code is added as `ref`). Null
   * (not set): the brand's store address on the referral service, `https://<store_url>/?ref=<CODE>`.
   */
  storefrontUrl: string | null;
}

const DEFAULTS = {
  conversionTrigger: 'captured',
  retryBaseDelayMs: 1_000,
  retryMaxDelayMs: 10 * 60_000,
  requestTimeoutMs: 10_000,
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Validates the plugin's options; a bad one throws an error that names it. */
export function parsePluginOptions(raw: Record<string, unknown> | undefined): ReferralPluginOptions {
  const options = raw ?? {};
  const text = (name: string): string => {
    const value = options[name];
    if (typeof value !== 'string' || value.trim() === '') throw new Error(`referral plugin option ${name} is required`);
    return value.trim();
  };
  const milliseconds = (name: keyof typeof DEFAULTS, fallback: number): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new Error(`referral plugin option ${name} must be a positive number of milliseconds`);
    }
    return value;
  };

  const serviceUrl = text('serviceUrl');
  let parsed: URL;
  try {
    parsed = new URL(serviceUrl);
  } catch {
    throw new Error(`referral plugin option serviceUrl is not a URL: ${serviceUrl}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error('referral plugin option serviceUrl must be an https:// URL');
  }
  const brandId = text('brandId');
  if (!UUID.test(brandId)) throw new Error('referral plugin option brandId must be the brand ID (a UUID)');
  const trigger = options.conversionTrigger ?? DEFAULTS.conversionTrigger;
  if (trigger !== 'captured' && trigger !== 'placed') {
    throw new Error('referral plugin option conversionTrigger must be "captured" or "placed"');
  }
  let storefrontUrl: string | null = null;
  if (options.storefrontUrl !== undefined && options.storefrontUrl !== null && options.storefrontUrl !== '') {
    storefrontUrl = typeof options.storefrontUrl === 'string' ? options.storefrontUrl.trim() : '';
    const protocol = URL.canParse(storefrontUrl.split('{code}').join('CODE')) ? new URL(storefrontUrl.split('{code}').join('CODE')).protocol : null;
    if (protocol !== 'https:' && protocol !== 'http:') {
      throw new Error('referral plugin option storefrontUrl must be a storefront URL, like https://shop.example.com/?ref={code}');
    }
  }
  return {
    serviceUrl: serviceUrl.replace(/\/+$/, ''),
    brandId,
    apiKey: text('apiKey'),
    conversionTrigger: trigger,
    retryBaseDelayMs: milliseconds('retryBaseDelayMs', DEFAULTS.retryBaseDelayMs),
    retryMaxDelayMs: milliseconds('retryMaxDelayMs', DEFAULTS.retryMaxDelayMs),
    requestTimeoutMs: milliseconds('requestTimeoutMs', DEFAULTS.requestTimeoutMs),
    storefrontUrl,
  };
}
