import fs from 'node:fs';
import path from 'node:path';
import { processEnv, referrals, removeScratch, tempDataDir } from '../operations/processes';

afterAll(removeScratch);

/** The CLI as a user runs it, on an empty DATA_DIR: what it answers, whether it created a database there, and what it left there. */
async function onEmptyDataDir(...args: string[]) {
  const dataDir = tempDataDir();
  const result = await referrals(args, processEnv({ DATA_DIR: dataDir }));
  return { ...result, createdDatabase: fs.existsSync(path.join(dataDir, 'pgdata')), leftInDataDir: fs.readdirSync(dataDir) };
}

describe('referrals without a command to run', () => {
  it('answers an unknown command with exit 2 and the usage, and leaves the data directory empty', async () => {
    const result = await onEmptyDataDir('frobnicate', '--json');
    expect(result).toMatchObject({ code: 2, stdout: '', createdDatabase: false, leftInDataDir: [] });
    expect(result.stderr).toContain('unknown command "frobnicate"');
    expect(result.stderr).toContain('referrals brand create');
  });

  it('prints the usage for --help (exit 0) and for no command at all (exit 2), and creates no database', async () => {
    const help = await onEmptyDataDir('--help');
    expect(help).toMatchObject({ code: 0, stderr: '', createdDatabase: false, leftInDataDir: [] });
    expect(help.stdout).toContain('usage: referrals <command>');
    const bare = await onEmptyDataDir();
    expect(bare).toMatchObject({ code: 2, stdout: '', createdDatabase: false, leftInDataDir: [] });
    expect(bare.stderr).toContain('usage: referrals <command>');
  });

  it('answers a flag the command cannot use with exit 2, the message and its usage, and creates no database', async () => {
    const missing = await onEmptyDataDir('brand', 'create', '--plan', 'growth', '--json');
    expect(missing).toMatchObject({ code: 2, stdout: '', createdDatabase: false, leftInDataDir: [] });
    expect(missing.stderr).toContain('error: --name is required');
    expect(missing.stderr).toContain('usage: referrals brand create --name N');
    const badBrand = await onEmptyDataDir('rewards', 'list', '--brand', 'not-a-uuid');
    expect(badBrand).toMatchObject({ code: 2, createdDatabase: false, leftInDataDir: [] });
    expect(badBrand.stderr).toContain('--brand must be a brand ID');
    const connectorCommand = await onEmptyDataDir('shopify', 'inbox', '--retry', 'webhook-1');
    expect(connectorCommand).toMatchObject({ code: 2, createdDatabase: false, leftInDataDir: [] });
    expect(connectorCommand.stderr).toContain('--retry needs --brand');
  });
});
