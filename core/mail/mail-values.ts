import { shareLink } from '../advocates/share-link';
import type { Brand, Language } from '../brands/brand';
import { currencyExponent } from '../currency';
import { mailPhrases } from './default-templates';

/** The facts a message row keeps from the moment it was written (amounts are decimal strings of the brand's currency). */
export interface MailData {
  referral_code?: string | null;
  amount?: string;
  currency?: string;
  held_until?: string;
  /** reward_reversed: the refunded order's value in its own currency, when it was placed, and what the advocate owes after (absent: nothing). */
  order_value?: string;
  order_currency?: string;
  order_date?: string;
  owed?: string;
  /** reward_issued: the advocate's single-use code (absent for store credit). */
  reward_code?: string;
  /** reward_issued: how it reached them (absent: a code), and whether a store credit came as a code for want of a customer account. */
  reward_method?: 'code' | 'store_credit';
  no_customer_account?: boolean;
  /** reward_issued: when the code expires (absent: never). */
  expires_at?: string;
  /** friend_offer: the advocate who referred the friend. */
  advocate_id?: number;
  /** A test a merchant sent themselves (core/mail/test-mail.ts): marked in its subject, with the sample advocate. */
  test?: boolean;
  sample_advocate?: MailAdvocate;
}

/** The recipient advocate, or the referring one (friend_offer), as the worker reads them. */
export interface MailAdvocate {
  first_name: string;
  /** Their first referral code. */
  code: string | null;
}

// Money the way the language writes it ("$12.50", "12,50 €"); dates the way a person reads them ("12 Dec 2026").
const MONEY_LOCALE: Record<Language, string> = { en: 'en-US', fr: 'fr-FR', de: 'de-DE', es: 'es-ES' };
const DATE_LOCALE: Record<Language, string> = { en: 'en-GB', fr: 'fr-FR', de: 'de-DE', es: 'es-ES' };

// An Intl formatter costs far more to make than to use: one per language (and currency), kept.
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function formatter<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => T): T {
  let made = formatters.get(key) as T | undefined;
  if (!made) formatters.set(key, (made = make()));
  return made;
}

export function formatMoney(amount: string | number, currency: string, language: Language): string {
  const digits = currencyExponent(currency);
  const format = formatter(`money:${language}:${currency}`, () => new Intl.NumberFormat(MONEY_LOCALE[language], { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }));
  return format.format(Number(amount));
}

export function formatDate(iso: string, language: Language): string {
  const format = formatter(`date:${language}`, () => new Intl.DateTimeFormat(DATE_LOCALE[language], { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }));
  return format.format(new Date(iso));
}

const percent = (value: number, language: Language) => formatter(`percent:${language}`, () => new Intl.NumberFormat(MONEY_LOCALE[language], { maximumFractionDigits: 2 })).format(value);

/** The friend's offer in words: "15% off orders of $50.00 or more". */
export function friendOfferPhrase(brand: Brand, language: Language): string {
  const phrases = mailPhrases(language);
  if (brand.referee_discount_type === 'free_shipping') {
    return brand.referee_min_purchase ? phrases.freeShipping + phrases.minimumPurchase.replace('{amount}', formatMoney(brand.referee_min_purchase, brand.currency, language)) : phrases.freeShipping;
  }
  const value = brand.referee_discount_type === 'percentage' ? percent(brand.referee_discount_value, language) : formatMoney(brand.referee_discount_value, brand.currency, language);
  const offer = (brand.referee_discount_type === 'percentage' ? phrases.percentOff : phrases.amountOff).replace('{value}', value);
  return brand.referee_min_purchase ? offer + phrases.minimumPurchase.replace('{amount}', formatMoney(brand.referee_min_purchase, brand.currency, language)) : offer;
}

/** The advocate's reward in words: "$5.00", or "10% of their order". */
export function advocateRewardPhrase(brand: Brand, language: Language): string {
  const phrases = mailPhrases(language);
  return brand.reward_type === 'percentage'
    ? phrases.rewardPercent.replace('{value}', percent(brand.reward_value, language))
    : phrases.rewardFixed.replace('{value}', formatMoney(brand.reward_value, brand.currency, language));
}

/** reward_issued's {{reward_use}}: how to spend what was issued — a code at checkout, or store credit when signed in. */
function rewardUsePhrase(brand: Brand, data: MailData): string {
  const phrases = mailPhrases(brand.language);
  if (data.reward_method === 'store_credit') {
    return phrases.rewardCreditUse.replace('{amount}', data.amount !== undefined ? formatMoney(data.amount, data.currency ?? brand.currency, brand.language) : '').replace('{store}', brand.name);
  }
  if (data.reward_code === undefined) return '';
  const use = phrases.rewardCodeUse.replace('{code}', data.reward_code);
  return data.no_customer_account ? `${phrases.rewardNoAccount.replace('{store}', brand.name)} ${use}` : use;
}

/** Every placeholder's value for one message: what its row kept, the advocate as they are, the brand's program as it is. */
export function mailValues(brand: Brand, data: MailData, advocate: MailAdvocate | null): Record<string, string> {
  const language = brand.language;
  const code = data.referral_code ?? advocate?.code ?? '';
  return {
    brand_name: brand.name,
    store_url: brand.store_url ?? '',
    first_name: advocate?.first_name ?? '',
    advocate_first_name: advocate?.first_name ?? '',
    referral_code: code,
    share_link: (code && shareLink(brand, code)) || '',
    amount: data.amount !== undefined ? formatMoney(data.amount, data.currency ?? brand.currency, language) : '',
    held_until: data.held_until ? formatDate(data.held_until, language) : '',
    order_value: data.order_value !== undefined ? formatMoney(data.order_value, data.order_currency ?? brand.currency, language) : '',
    order_date: data.order_date ? formatDate(data.order_date, language) : '',
    owed_note: data.owed !== undefined ? mailPhrases(language).owedNote.replace('{amount}', formatMoney(data.owed, data.currency ?? brand.currency, language)) : '',
    reward_code: data.reward_code ?? '',
    reward_use: rewardUsePhrase(brand, data),
    expiry_note: data.expires_at ? mailPhrases(language).expiryNote.replace('{date}', formatDate(data.expires_at, language)) : '',
    friend_offer: friendOfferPhrase(brand, language),
    advocate_reward: advocateRewardPhrase(brand, language),
  };
}
