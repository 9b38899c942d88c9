import { type Actor, MERCHANT_ROLES, type MerchantRole, changeRole, listUsers, removeUser } from '../../core/accounts/merchant-users';
import { type LinkSettings, inviteUser } from '../../core/accounts/sign-in-links';
import { getBrand } from '../../core/brands/brand';
import { INVITATION_LINK_TTL_MINUTES } from '../../core/dashboard/dashboard-sign-in';
import { inTransaction } from '../../core/db/transaction';
import { isMailbox } from '../../core/mail/mailbox';
import { type Config, publicUrlOf } from '../config';
import { type Flags, brandFlag, choiceFlag, numberFlag, requiredFlag } from './args';
import { CliError } from './cli-error';
import { type Command, flagsFirst } from './command';

/** Who the CLI acts as: the operator, who may do what an owner may (the audit log names them so). */
export const CLI_OPERATOR: Actor = { name: 'operator (CLI)', role: 'owner' };

/** Where the links the CLI has emailed point, and what seals them in the outbox. */
export const linkSettingsOf = (config: Config): LinkSettings => ({ publicUrl: publicUrlOf(config), secret: config.keyEncryptionSecret });

/** What an invitation's output says was sent. */
export const invitationNote = (email: string) =>
  `An invitation email with a one-time sign-in link was queued to ${email} (it is sent by the server's mail worker; \`mail list --brand ID\` shows it). ` +
  `The link lasts ${INVITATION_LINK_TTL_MINUTES / 1440} days and works once; after that they ask for a sign-in link at /dashboard/sign-in.`;

/** --email E: an address mail can be delivered to. */
function emailFlag(flags: Flags): string {
  const email = requiredFlag(flags, 'email');
  if (!isMailbox(email)) throw new CliError(`--email must be an email address (got "${email}")`);
  return email;
}

function roleFlag(flags: Flags): MerchantRole {
  const role = choiceFlag(flags, 'role', MERCHANT_ROLES);
  if (!role) throw new CliError(`--role is required (one of ${MERCHANT_ROLES.join(', ')})`);
  return role;
}

function userFlag(flags: Flags): number {
  const userId = numberFlag(flags, 'user', { integer: true });
  if (!userId) throw new CliError('--user is required (a user id, from `user list`)');
  return userId;
}

/** `referrals user …`: the people who run a brand's program, each with a role. */
export const userCommands: Record<string, Command> = {
  'user invite': flagsFirst(
    `user invite --brand ID --email E --role ${MERCHANT_ROLES.join('|')} [--json]`,
    (flags) => ({ brandId: brandFlag(flags), email: emailFlag(flags), role: roleFlag(flags) }),
    ({ brandId, email, role }, { db, config }) =>
      inTransaction(db, async (trx) => {
        await getBrand(trx, brandId);
        const user = await inviteUser(trx, brandId, { email, role }, CLI_OPERATOR, linkSettingsOf(config));
        return { user, note: invitationNote(user.email) };
      }),
  ),
  'user list': flagsFirst('user list --brand ID [--json]', brandFlag, async (brandId, { db }) => {
    await getBrand(db, brandId);
    return { users: await listUsers(db, brandId) };
  }),
  'user role': flagsFirst(
    `user role --brand ID --user USER_ID --role ${MERCHANT_ROLES.join('|')} [--json]`,
    (flags) => ({ brandId: brandFlag(flags), userId: userFlag(flags), role: roleFlag(flags) }),
    async ({ brandId, userId, role }, { db }) => ({ user: await inTransaction(db, (trx) => changeRole(trx, brandId, userId, role, CLI_OPERATOR)) }),
  ),
  'user remove': flagsFirst(
    'user remove --brand ID --user USER_ID [--json]',
    (flags) => ({ brandId: brandFlag(flags), userId: userFlag(flags) }),
    async ({ brandId, userId }, { db }) => ({ removed: await inTransaction(db, (trx) => removeUser(trx, brandId, userId, CLI_OPERATOR)) }),
  ),
};
