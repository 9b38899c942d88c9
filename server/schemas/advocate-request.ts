import { z } from 'zod';
import { idText, limitText } from './reward-request';
import { mailbox } from './fields';

const name = (field: string) => z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: `${field} must be at most 100 characters` });

/** POST /api/v1/advocates: who joins; the code is generated from the first name unless given. */
export const createAdvocateSchema = z.object({
  // The welcome email goes to it: an address that cannot receive mail is refused here.
  email: mailbox(),
  first_name: name('first_name'),
  last_name: name('last_name').optional(),
  code: z.string().trim().regex(/^[A-Za-z0-9_-]{3,64}$/, { error: 'must be 3-64 letters, digits, "-" or "_"' }).optional(),
});

/** GET /api/v1/advocates: a search (email, name or code) and the page. */
export const listAdvocatesQuerySchema = z.object({
  q: z.string().trim().max(200, { error: 'must be at most 200 characters' }).optional(),
  limit: limitText(200).optional(),
  cursor: idText('advocate id (next_cursor of the previous page)').optional(),
});
