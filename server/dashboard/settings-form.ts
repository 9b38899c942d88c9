import { ZodError, type z } from 'zod';
import { ATTRIBUTION_MODELS, type Brand, LANGUAGES, MAX_FRAUD_LIMIT, MAX_SETTING_DAYS, REFEREE_OFFER_TYPES, REWARD_FULFILMENTS, REWARD_TYPES } from '../../core/brands/brand';
import { DomainError } from '../../core/errors';
import { brandPatchSchema } from '../schemas/program-request';

/** How a setting is entered: the form's text is turned into the value the brand schema checks. */
type FieldKind = 'number' | 'integer' | 'optional-number' | 'optional-integer' | 'boolean' | 'text' | 'optional-text' | 'list' | readonly string[];

export interface SettingField {
  name: keyof Brand & string;
  label: string;
  kind: FieldKind;
  hint?: string;
}

const DAYS_HINT = `1 to ${MAX_SETTING_DAYS} days.`;
const FRAUD_LIMIT_HINT = `At most ${MAX_FRAUD_LIMIT.toLocaleString('en-US')}; empty or 0: no limit.`;

/** The settings page's fields, by section, in the brand schema's own names (the same schema as PATCH /api/v1/brand and the CLI check). */
export const SETTING_SECTIONS: Array<{ title: string; fields: SettingField[] }> = [
  { title: 'Program', fields: [{ name: 'name', label: 'Program (brand) name', kind: 'text' }] },
  {
    title: "Advocate's reward",
    fields: [
      { name: 'reward_type', label: 'Reward type', kind: REWARD_TYPES },
      { name: 'reward_value', label: 'Reward value', kind: 'number', hint: 'An amount in the brand currency, or a percentage of the order (at most 100).' },
      { name: 'reward_hold_days', label: 'Hold days', kind: 'integer', hint: `Days a new reward is held before it is approved (returns window); 0 approves at once, ${MAX_SETTING_DAYS} at most.` },
      { name: 'allow_pending_redemption', label: 'Advocates may spend held rewards', kind: 'boolean' },
      {
        name: 'reward_fulfilment',
        label: 'How advocates get their reward',
        kind: REWARD_FULFILMENTS,
        hint:
          'payout: you pay approved rewards yourself, from Payouts. coupon: approved money becomes a single-use discount code for that amount on your store, emailed to the advocate. ' +
          'store_credit: approved money is added to the store credit of the advocate\'s customer account on your Shopify store (or Medusa store running the Store Credit Module), spent at checkout when they are signed in; an advocate with no customer account gets a code instead.',
      },
      { name: 'fulfil_min_amount', label: 'Smallest code or credit', kind: 'number', hint: 'With coupon or store_credit: approved money waits until it reaches this amount, then one code or credit carries all of it; 0: one for every approved reward.' },
      {
        name: 'reward_code_expiry_days',
        label: 'Codes expire after (days)',
        kind: 'optional-integer',
        hint: `With coupon: an unused code is removed from your store after this many days and its money is issued again as a new code; empty: codes never expire (1 to ${MAX_SETTING_DAYS}).`,
      },
    ],
  },
  {
    title: "Friend's offer",
    fields: [
      { name: 'referee_discount_type', label: 'Offer type', kind: REFEREE_OFFER_TYPES },
      { name: 'referee_discount_value', label: 'Offer value', kind: 'number', hint: 'A percentage off (at most 100), or an amount off in the brand currency; 0 for free shipping.' },
      { name: 'referee_min_purchase', label: 'Minimum purchase', kind: 'optional-number', hint: 'Empty: no minimum.' },
      { name: 'referee_discount_cap', label: 'Largest discount', kind: 'optional-number', hint: 'A cap on a percentage offer; empty: no cap.' },
      { name: 'referee_first_purchase_only', label: "For a friend's first purchase only", kind: 'boolean' },
      { name: 'referee_individual_use', label: 'Not combined with other discounts', kind: 'boolean' },
    ],
  },
  {
    title: 'Attribution',
    fields: [
      { name: 'attribution_model', label: 'Model', kind: ATTRIBUTION_MODELS },
      { name: 'attribution_window_days', label: 'Window (days)', kind: 'integer', hint: DAYS_HINT },
      { name: 'count_test_orders', label: "Count the platform's test orders", kind: 'boolean' },
    ],
  },
  {
    title: 'Fraud rules',
    fields: [
      { name: 'fraud_self_referral', label: 'Hold self-referrals', kind: 'boolean' },
      { name: 'fraud_velocity', label: 'Hold bursts (velocity)', kind: 'boolean' },
      { name: 'fraud_disposable_email', label: 'Hold disposable email addresses', kind: 'boolean' },
      { name: 'fraud_max_per_advocate_hour', label: 'Most conversions per advocate per hour', kind: 'optional-integer', hint: FRAUD_LIMIT_HINT },
      { name: 'fraud_max_per_ip_day', label: 'Most conversions per shopper IP per day', kind: 'optional-integer', hint: FRAUD_LIMIT_HINT },
      { name: 'fraud_ip_window_days', label: 'Same-IP look-back (days)', kind: 'integer', hint: DAYS_HINT },
    ],
  },
  {
    title: 'Emails',
    fields: [
      { name: 'language', label: 'Language', kind: LANGUAGES },
      { name: 'sender_name', label: 'Sender name', kind: 'optional-text', hint: "Empty: the brand's name." },
      { name: 'store_url', label: 'Store address', kind: 'optional-text', hint: 'https://… — share links point at it.' },
      { name: 'email_advocate_welcome', label: 'Welcome email', kind: 'boolean' },
      { name: 'email_advocate_link_again', label: '"Your link again" email (a storefront join of an address that already joined)', kind: 'boolean' },
      { name: 'email_reward_earned', label: 'Reward earned email', kind: 'boolean' },
      { name: 'email_reward_approved', label: 'Reward approved email', kind: 'boolean' },
      { name: 'email_reward_paid', label: 'Reward paid email', kind: 'boolean' },
      { name: 'email_reward_reversed', label: 'Reward taken back email (a refund took back part of a reward the advocate was told of)', kind: 'boolean' },
      { name: 'email_reward_issued', label: 'Reward code or store credit email (with coupon or store_credit fulfilment)', kind: 'boolean' },
      { name: 'email_friend_offer', label: "Friend's offer email", kind: 'boolean' },
      { name: 'email_reengagement', label: 'Re-engagement email', kind: 'boolean' },
      { name: 'reengagement_days', label: 'Re-engage after (days)', kind: 'integer', hint: DAYS_HINT },
    ],
  },
  {
    title: 'Storefront',
    fields: [
      { name: 'allowed_origins', label: 'Storefront origins (one per line)', kind: 'list', hint: 'Pages on these origins may load referrals.js with your publishable key, like https://shop.example.com.' },
      { name: 'auto_enroll_customers', label: 'Make every paying customer an advocate (with the welcome email)', kind: 'boolean' },
    ],
  },
];

const FIELDS = SETTING_SECTIONS.flatMap((section) => section.fields);

/** A form field's text as the value its schema expects; text that is not a number stays text, so the schema names the field. */
function valueOf(kind: FieldKind, raw: string | null): unknown {
  const text = (raw ?? '').trim();
  if (kind === 'boolean') return raw === 'on' || raw === 'true' || raw === '1';
  if (kind === 'list') return text.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(kind) || kind === 'text') return text;
  if (kind === 'optional-text') return text === '' ? null : text;
  if (text === '') return typeof kind === 'string' && kind.startsWith('optional') ? null : undefined;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

/** Every field's form text as its schema's value (undefined where a required field was left empty). */
const formValues = (form: URLSearchParams) => Object.fromEntries(FIELDS.map((field) => [field.name, valueOf(field.kind, form.get(field.name))]));

export interface SettingsRefusal {
  /** Each refused field's message, shown next to it. */
  errors: Record<string, string>;
  /** What the merchant typed, shown back. */
  values: Record<string, unknown>;
}

/** The brand patch of a form: what passed the schema (`patch`, to check further), and every bad field's message (`errors`). */
export interface ParsedSettings {
  patch: ReturnType<typeof brandPatchSchema.parse>;
  errors: Record<string, string>;
  values: Record<string, unknown>;
}

/** The posted form checked by the brand schema, field by field, so every bad field is named at once. */
export function parseSettingsForm(form: URLSearchParams): ParsedSettings {
  const values = formValues(form);
  const errors: Record<string, string> = {};
  for (const field of FIELDS) if (values[field.name] === undefined) errors[field.name] = `${labelOf(field.name)} is required`;
  const given = () => Object.fromEntries(Object.entries(values).filter(([name, value]) => value !== undefined && !(name in errors)));
  const parsed = brandPatchSchema.safeParse(given());
  if (parsed.success) return { patch: parsed.data, errors, values };
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? 'name');
    errors[field] ??= `${labelOf(field)} ${issueText(issue)}`;
  }
  // What is left passed the schema: the checks after it (a percentage, an amount in the currency) look at it too.
  const rest = brandPatchSchema.safeParse(given());
  return { patch: rest.success ? rest.data : {}, errors, values };
}

const labelOf = (name: string) => FIELDS.find((field) => field.name === name)?.label ?? name;

/** A schema's refusal in a merchant's words ("must be a number", not "expected number, received string"). */
function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return issue.expected === 'number' ? 'must be a number, like 15 or 12.50' : `must be a ${issue.expected}`;
  if (issue.code === 'too_small') return issue.minimum === 0 ? 'must not be negative' : `must be at least ${String(issue.minimum)}`;
  if (issue.code === 'too_big') return `must be at most ${String(issue.maximum)}`;
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.join(', ')}`;
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

/** A refusal in a merchant's words, with the field's label; the few rules a label alone does not explain say what they mean. */
export function settingWords(field: string, problem: string): string {
  if (/is a percentage and must be at most 100/.test(problem)) return field === 'reward_value' ? 'A percentage reward can be at most 100 %.' : 'A percentage off can be at most 100 %.';
  return `${labelOf(field)}: ${problem}`;
}

/** Core's and the platforms' refusals (each message starts with the field it names) as form errors, beside their fields. */
export function errorsOfProblems(problems: readonly string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const message of problems) {
    const field = FIELDS.find((candidate) => message.startsWith(candidate.name))?.name ?? 'name';
    errors[field] ??= settingWords(field, message.startsWith(field) ? message.slice(field.length).replace(/^[\s:]+/, '') : message);
  }
  return errors;
}

/** A refusal from core when saving (a CHECK the schema did not know): its message starts with the field it names. */
export function refusalOfError(error: unknown, form: URLSearchParams): SettingsRefusal | null {
  if (!(error instanceof DomainError || error instanceof ZodError)) return null;
  return { errors: errorsOfProblems([error.message]), values: formValues(form) };
}
