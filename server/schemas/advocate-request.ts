import { z } from 'zod';
import { ADVOCATE_STATUSES } from '../../core/advocates/advocate-status';
import { CODE_KINDS } from '../../core/advocates/code-kind';
import { idText, limitText } from './reward-request';
import { mailbox } from './fields';

const codeField = () => z.string().trim().regex(/^[A-Za-z0-9_-]{3,64}$/, { error: 'must be 3-64 letters, digits, "-" or "_"' });
const name = (field: string) => z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: `${field} must be at most 100 characters` });

/** POST /api/v1/advocates: who joins; the code is generated from the first name unless given. */
export const createAdvocateSchema = z.object({
  // The welcome email goes to it: an address that cannot receive mail is refused here.
  email: mailbox(),
  first_name: name('first_name'),
  last_name: name('last_name').optional(),
  code: codeField().optional(),
});

/** PATCH /api/v1/advocates/{id}: a corrected name or email. */
export const updateAdvocateSchema = z
  .object({ email: mailbox(), first_name: name('first_name'), last_name: name('last_name').nullable() })
  .partial()
  .strict()
  .refine((changes) => Object.keys(changes).length > 0, { error: 'name at least one of email, first_name, last_name' });

/** POST /api/v1/advocates/{id}/codes: another referral code, or a platform coupon code mapped to them. */
export const addCodeSchema = z.object({ code: codeField(), kind: z.enum(CODE_KINDS, { error: `must be one of ${CODE_KINDS.join(', ')}` }).optional() });

/** GET /api/v1/advocates: a search (email, name or code), a status, and the page. */
export const listAdvocatesQuerySchema = z.object({
  q: z.string().trim().max(200, { error: 'must be at most 200 characters' }).optional(),
  status: z.enum(ADVOCATE_STATUSES, { error: `must be one of ${ADVOCATE_STATUSES.join(', ')}` }).optional(),
  limit: limitText(200).optional(),
  cursor: idText('advocate id (next_cursor of the previous page)').optional(),
  /** Only advocates changed (details, codes or status) at or after this time: what a platform connector pulls. */
  updated_since: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 timestamp with a time zone, like 2026-12-14T10:00:00Z' })
    .transform((value) => new Date(value))
    .optional(),
});

/** GET /api/v1/advocates/by-email?email=: one advocate, found by the address a platform knows its logged-in customer by. */
export const advocateByEmailQuerySchema = z.object({ email: mailbox() });

/** POST /api/v1/advocates/join: a shopper joins from the store (publishable or secret key). */
export const joinAdvocateSchema = z.object({
  email: mailbox(),
  first_name: name('first_name'),
  last_name: name('last_name').optional(),
  consent: z.literal(true, { error: 'must be true: the shopper agreed to join the referral program and get its emails' }),
});

// A web address ("evil.example", "http://", "www."), an email address or a line break.
const NOT_A_NAME = /[@/\\:<>\p{Cc}]|www\.|[\p{L}\p{N}]\.[\p{L}\p{N}]{2,}/iu;

/**
 * A name typed on a storefront page, which the welcome email greets an address nobody verified
 * with: a name, not a link or an address the brand's email would carry to anyone (issue 39).
 */
export const typedName = (field: string) => name(field).refine((value) => !NOT_A_NAME.test(value), { error: `${field} must be a name, without a web or email address or a line break` });

/** The join with the publishable key: the same, with names that are only names. */
export const publicJoinSchema = joinAdvocateSchema.extend({ first_name: typedName('first_name'), last_name: typedName('last_name').optional() });
