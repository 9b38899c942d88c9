import type { DeliveryLogger, DeliveryPolicy } from './deliver-snapshot';
import type { QueryGraph } from './order-graph';

/**
 * The brand's currency trap: the service records an order in the brand's currency, and refuses
 * (422 exchange_rate_required, for good) an order in another one. A store whose default currency
 * is not the brand's would have every order refused, so the plugin compares the two before it
 * delivers anything, and holds the deliveries (pending, untouched) while they differ.
 *
 * Where in Medusa's lifecycle: before each delivery is sent (by the order subscribers, and by the
 * scheduled job, which runs every 10 s from start-up, so a mismatch is logged within seconds of
 * `medusa start`, with or without orders), the brand's currency cached. Not in the module's loader:
 * Medusa runs a module's loaders in the module's own container (modules are isolated: neither the
 * Store module nor Query can be resolved there), and also during `medusa db:migrate`; and a loader
 * that called the referral service would make Medusa's start-up depend on that service being up.
 * Nor does it stop Medusa: checkout and the admin work as usual, only the deliveries wait.
 */

/** What query.graph reads of the store: its currencies and which one is the default. */
export const STORE_CURRENCY_FIELDS = ['id', 'supported_currencies.currency_code', 'supported_currencies.is_default'];

/** The brand's settings, read with the plugin's key (the service's REST API). */
const BRAND_PATH = '/api/v1/brand';

/** A standing mismatch is logged again this often (it is re-checked at every delivery and job run). */
export const MISMATCH_REPEAT_LOG_MS = 60 * 60_000;

export type CurrencyVerdict =
  | { state: 'match'; currency: string }
  | { state: 'mismatch'; storeCurrency: string; brandCurrency: string; message: string }
  /** Could not tell (service unreachable, a refused key, a store without a default currency): deliveries go ahead. */
  | { state: 'unknown'; reason: string };

interface StoreCurrencyRow {
  supported_currencies?: Array<{ currency_code?: string | null; is_default?: boolean | null } | null> | null;
}

/** The store's default currency (`store.supported_currencies` marked `is_default`), upper case; null when none is marked. */
export async function readStoreDefaultCurrency(query: QueryGraph): Promise<string | null> {
  const { data } = await query.graph({ entity: 'store', fields: STORE_CURRENCY_FIELDS });
  // One store is the norm; with several, the first that names a default.
  for (const store of data as StoreCurrencyRow[]) {
    const code = store.supported_currencies?.find((currency) => currency?.is_default)?.currency_code;
    if (code) return code.toUpperCase();
  }
  return null;
}

/** GET /api/v1/brand with the plugin's key: the brand's currency, or why it could not be read. */
export async function fetchBrandCurrency(policy: Pick<DeliveryPolicy, 'serviceUrl' | 'brandId' | 'apiKey' | 'requestTimeoutMs'>): Promise<{ currency: string } | { error: string }> {
  const url = `${policy.serviceUrl}${BRAND_PATH}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Accept: 'application/json', 'X-API-Key': policy.apiKey, 'X-Brand-ID': policy.brandId },
      signal: AbortSignal.timeout(policy.requestTimeoutMs),
    });
  } catch (error) {
    return { error: `referral service unreachable (${url}): ${(error as Error).message}` };
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) return { error: `GET ${url} answered ${response.status}: ${text.slice(0, 200)}` };
  let currency: unknown;
  try {
    currency = (JSON.parse(text) as { data?: { currency?: unknown } }).data?.currency;
  } catch {
    currency = undefined;
  }
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) return { error: `GET ${url} answered without the brand's currency` };
  return { currency: currency.toUpperCase() };
}

/** The error a merchant reads in Medusa's log: both currencies, and the two ways out. */
export function currencyMismatchMessage(storeCurrency: string, brandCurrency: string, brandId: string): string {
  return (
    `referral plugin: not delivering orders: the store's default currency is ${storeCurrency} and the referral brand ` +
    `${brandId} is in ${brandCurrency}, so the referral service would refuse every order (422 exchange_rate_required). ` +
    `Create a brand in ${storeCurrency} on the referral service (npx referrals brand create --name <name> --plan <plan> ` +
    `--currency ${storeCurrency}, then npx referrals key create --brand <its id>) and set the plugin's brandId and apiKey ` +
    `to it, or point the plugin at another brand in ${storeCurrency}, then restart Medusa. Order snapshots wait, ` +
    `pending, and are sent once the currencies match.`
  );
}

/**
 * The check, one per plugin module (per Medusa process). The brand's currency is asked of the
 * service once and cached (a brand's currency never changes, and other plugin options mean a
 * restart); the store's default currency is read at every check, one small query of Medusa's own
 * database, so a change in Medusa's admin is seen at the next order or job run (within 10 s).
 * Concurrent checks share one read.
 */
export class CurrencyGate {
  private brandCurrency: string | null = null;
  private verdict: CurrencyVerdict | null = null;
  private inFlight: Promise<CurrencyVerdict> | null = null;
  private loggedMismatch: { key: string; at: number } | null = null;
  private loggedUnknown: string | null = null;

  constructor(
    private readonly policy: Pick<DeliveryPolicy, 'serviceUrl' | 'brandId' | 'apiKey' | 'requestTimeoutMs'>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** False only while the currencies are known to differ: then nothing is sent. */
  async allows(query: QueryGraph, logger: DeliveryLogger): Promise<boolean> {
    return (await this.check(query, logger)).state !== 'mismatch';
  }

  /** The last answer, without reading anything (null before the first check). */
  lastVerdict(): CurrencyVerdict | null {
    return this.verdict;
  }

  async check(query: QueryGraph, logger: DeliveryLogger): Promise<CurrencyVerdict> {
    if (!this.inFlight) {
      this.inFlight = this.evaluate(query, logger).finally(() => {
        this.inFlight = null;
      });
    }
    return this.inFlight;
  }

  private async evaluate(query: QueryGraph, logger: DeliveryLogger): Promise<CurrencyVerdict> {
    const verdict = await this.compare(query);
    const previous = this.verdict;
    this.verdict = verdict;
    this.report(verdict, previous, logger);
    return verdict;
  }

  private async compare(query: QueryGraph): Promise<CurrencyVerdict> {
    let storeCurrency: string | null;
    try {
      storeCurrency = await readStoreDefaultCurrency(query);
    } catch (error) {
      return { state: 'unknown', reason: `the store's currencies could not be read: ${(error as Error).message}` };
    }
    if (!storeCurrency) return { state: 'unknown', reason: 'the store has no default currency (Settings → Store → Currencies)' };
    if (!this.brandCurrency) {
      const answer = await fetchBrandCurrency(this.policy);
      if ('error' in answer) return { state: 'unknown', reason: `the brand's currency could not be read: ${answer.error}` };
      this.brandCurrency = answer.currency;
    }
    if (storeCurrency === this.brandCurrency) return { state: 'match', currency: storeCurrency };
    return {
      state: 'mismatch',
      storeCurrency,
      brandCurrency: this.brandCurrency,
      message: currencyMismatchMessage(storeCurrency, this.brandCurrency, this.policy.brandId),
    };
  }

  /** A mismatch is an error, logged when found and hourly while it stands; its end, once. */
  private report(verdict: CurrencyVerdict, previous: CurrencyVerdict | null, logger: DeliveryLogger): void {
    const now = this.clock();
    if (verdict.state === 'mismatch') {
      const key = `${verdict.storeCurrency}/${verdict.brandCurrency}`;
      if (!this.loggedMismatch || this.loggedMismatch.key !== key || now - this.loggedMismatch.at >= MISMATCH_REPEAT_LOG_MS) {
        logger.error(verdict.message);
        this.loggedMismatch = { key, at: now };
      }
      return;
    }
    if (previous?.state === 'mismatch' && verdict.state === 'match') {
      logger.info(`referral plugin: the store's default currency and the brand's are both ${verdict.currency} now; sending the order snapshots that waited`);
    }
    this.loggedMismatch = null;
    if (verdict.state === 'unknown') {
      if (this.loggedUnknown !== verdict.reason) logger.warn(`referral plugin: currencies not compared (${verdict.reason}); delivering meanwhile`);
      this.loggedUnknown = verdict.reason;
    } else {
      this.loggedUnknown = null;
    }
  }
}

const gates = new WeakMap<object, CurrencyGate>();

/** The gate of a plugin module (its options): one per Medusa process, shared by the subscribers, the job and the admin routes. */
export function currencyGateOf(store: { readonly options: DeliveryPolicy }): CurrencyGate {
  let gate = gates.get(store);
  if (!gate) {
    gate = new CurrencyGate(store.options);
    gates.set(store, gate);
  }
  return gate;
}
