import { accountMailContent } from '../../core/accounts/account-mail-content';
import { decryptSecret } from '../../core/brands/key-encryption';
import { publicUrlOf } from '../../server/config';
import { resolveLine, runCli } from '../../server/cli/run-cli';
import { TEST_SECRET, testConfig } from '../helpers/test-app';
import { testDatabase } from '../helpers/test-database';

const config = testConfig();

async function cli(...argv: string[]) {
  const db = await testDatabase();
  return runCli(argv, { db, config, isTTY: false, progress: () => undefined, connectors: [] });
}

async function json(...argv: string[]) {
  const output = await cli(...argv, '--json');
  expect(output).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(output.stdout);
}

const newBrand = async (name: string, ...more: string[]) => json('brand', 'create', '--name', name, '--plan', 'growth', ...more);

/** The account emails queued for a brand, oldest first. */
async function accountMails(brandId: string) {
  const db = await testDatabase();
  return db('mail_messages').where({ brand_id: brandId }).whereIn('template', ['merchant_invitation', 'merchant_sign_in']).orderBy('message_id').select('template', 'recipient', 'status', 'data');
}

const dataOf = (row: { data: unknown }) => (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as { link_sealed: string; invited_by?: string; role?: string };

describe('referrals user …', () => {
  it('invites a user: the user, and a queued invitation to that address whose sealed link signs in to the brand', async () => {
    const { brand_id } = await newBrand('Invites');
    const invited = await json('user', 'invite', '--brand', brand_id, '--email', 'Ada@Example.com', '--role', 'admin');
    expect(invited.user).toMatchObject({ user_id: expect.any(Number), brand_id, email: 'Ada@Example.com', role: 'admin', invited_by: 'operator (CLI)', last_sign_in_at: null });
    expect(invited.note).toContain('invitation email with a one-time sign-in link was queued to Ada@Example.com');

    const mails = await accountMails(brand_id);
    expect(mails).toMatchObject([{ template: 'merchant_invitation', recipient: 'Ada@Example.com', status: 'queued' }]);
    const data = dataOf(mails[0]!);
    // Issue 41: the email never says "operator (CLI) added you": an invitation names a person (an email) or "Your team".
    expect(data).toMatchObject({ role: 'admin' });
    expect(data.invited_by).toBeUndefined();
    expect(accountMailContent('merchant_invitation', { brandName: 'Invites', link: 'https://x.example/l', signInPage: 'https://x.example/s', role: 'admin' }).text).toContain('Your team added you to the Invites referral program dashboard as an admin.');
    const link = new URL(decryptSecret(data.link_sealed, TEST_SECRET));
    expect(`${link.origin}${link.pathname}`).toBe(`${publicUrlOf(config)}/dashboard/login`);
    expect(link.searchParams.get('brand')).toBe(brand_id);

    // Human output: the user and the note, as key: value lines.
    const human = await cli('user', 'invite', '--brand', brand_id, '--email', 'bo@example.com', '--role', 'viewer');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^user: \{/);
    expect(human.stdout).toContain('"email": "bo@example.com"');
    expect(human.stdout).toContain('note: An invitation email');

    const db = await testDatabase();
    const audit = await db('audit_log').where({ brand_id, action: 'user.invite' }).orderBy('entry_id').pluck('actor');
    expect(audit).toEqual(['operator (CLI)', 'operator (CLI)']);
  });

  it('refuses a second invitation of the same address (any case) with a conflict naming the user, and queues no second email', async () => {
    const { brand_id } = await newBrand('Twice');
    const { user } = await json('user', 'invite', '--brand', brand_id, '--email', 'cy@example.com', '--role', 'viewer');
    const again = await cli('user', 'invite', '--brand', brand_id, '--email', 'CY@example.com', '--role', 'admin');
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toContain(`already a user of this brand (user ${user.user_id}, viewer)`);
    expect(await accountMails(brand_id)).toHaveLength(1);
  });

  it('makes the first owner with brand create --owner-email, in the same command as the brand', async () => {
    const created = await newBrand('Owned', '--owner-email', 'owner@example.com');
    expect(created).toMatchObject({ brand_id: expect.any(String), api_key: expect.stringMatching(/^rk_/) });
    expect(created.owner).toMatchObject({ brand_id: created.brand_id, email: 'owner@example.com', role: 'owner', invited_by: 'operator (CLI)' });
    expect(created.note).toContain('queued to owner@example.com');
    expect(await accountMails(created.brand_id)).toMatchObject([{ template: 'merchant_invitation', recipient: 'owner@example.com', status: 'queued' }]);

    const plain = await newBrand('Unowned');
    expect(plain).not.toHaveProperty('owner');
    expect((await json('user', 'list', '--brand', plain.brand_id)).users).toEqual([]);
  });

  it('lists the users, changes a role, and never leaves the brand without an owner', async () => {
    const { brand_id, owner } = await newBrand('Team', '--owner-email', 'first@example.com');
    const { user: admin } = await json('user', 'invite', '--brand', brand_id, '--email', 'second@example.com', '--role', 'admin');

    const listed = await json('user', 'list', '--brand', brand_id);
    expect(listed.users.map((u: { email: string; role: string }) => [u.email, u.role])).toEqual([
      ['first@example.com', 'owner'],
      ['second@example.com', 'admin'],
    ]);

    const onlyOwner = await cli('user', 'remove', '--brand', brand_id, '--user', String(owner.user_id));
    expect(onlyOwner.code).toBe(1);
    expect(onlyOwner.stderr).toContain("first@example.com is the brand's only owner");
    const demoted = await cli('user', 'role', '--brand', brand_id, '--user', String(owner.user_id), '--role', 'admin');
    expect(demoted.code).toBe(1);
    expect(demoted.stderr).toContain("only owner");

    expect((await json('user', 'role', '--brand', brand_id, '--user', String(admin.user_id), '--role', 'owner')).user).toMatchObject({ user_id: admin.user_id, role: 'owner' });
    expect((await json('user', 'remove', '--brand', brand_id, '--user', String(owner.user_id))).removed).toMatchObject({ email: 'first@example.com' });
    expect((await json('user', 'list', '--brand', brand_id)).users).toMatchObject([{ email: 'second@example.com', role: 'owner' }]);

    const gone = await cli('user', 'remove', '--brand', brand_id, '--user', String(owner.user_id));
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`user ${owner.user_id} not found`);
  });

  it('exits 1 naming a brand that does not exist', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const argv of [['user', 'invite', '--brand', missing, '--email', 'a@example.com', '--role', 'admin'], ['user', 'list', '--brand', missing]]) {
      const output = await cli(...argv);
      expect(output.code).toBe(1);
      expect(output.stderr).toContain(`brand ${missing} not found`);
    }
  });

  const brand = '00000000-0000-4000-8000-000000000000';
  it.each([
    [['user', 'invite', '--brand', brand, '--email', 'a@example.com', '--role', 'boss'], '--role must be one of owner, admin, viewer (got "boss")'],
    [['user', 'invite', '--brand', brand, '--email', 'a@example.com'], '--role is required (one of owner, admin, viewer)'],
    [['user', 'invite', '--brand', brand, '--email', 'not-an-address', '--role', 'admin'], '--email must be an email address (got "not-an-address")'],
    [['user', 'invite', '--brand', brand, '--role', 'admin'], '--email is required'],
    [['user', 'invite', '--brand', 'acme', '--email', 'a@example.com', '--role', 'admin'], '--brand must be a brand ID'],
    [['user', 'list'], '--brand is required'],
    [['user', 'role', '--brand', brand, '--user', '1', '--role', 'god'], '--role must be one of owner, admin, viewer'],
    [['user', 'role', '--brand', brand, '--role', 'admin'], '--user is required'],
    [['user', 'remove', '--brand', brand, '--user', 'x'], '--user must be a non-negative integer'],
    [['brand', 'create', '--name', 'A', '--plan', 'growth', '--owner-email', 'nobody'], '--owner-email must be an email address (got "nobody")'],
  ])('answers %j with exit 2 naming the flag, before any database is opened', (argv, message) => {
    // resolveLine has no database: an answer from it is given before one is opened.
    const resolved = resolveLine(argv, []);
    expect(resolved).toHaveProperty('answer');
    const { answer } = resolved as Extract<typeof resolved, { answer: unknown }>;
    expect(answer).toMatchObject({ code: 2, stdout: '' });
    expect(answer.stderr).toContain(`error: ${message}`);
    expect(answer.stderr).toContain(`usage: referrals ${argv.slice(0, 2).join(' ')} --`);
  });
});
