import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config';

describe('the key-encryption secret kept in the data directory (no KEY_ENCRYPTION_SECRET)', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'key-secret-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is made the first time something reads it, not when the config loads', () => {
    const dataDir = path.join(root, 'data');
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(fs.existsSync(dataDir)).toBe(false);
    const secret = config.keyEncryptionSecret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.readdirSync(dataDir)).toEqual(['key-encryption-secret']);
    expect(fs.statSync(path.join(dataDir, 'key-encryption-secret')).mode & 0o777).toBe(0o600);
    expect(config.keyEncryptionSecret).toBe(secret);
  });

  it('is the same for every process: one made by another is read, never replaced', () => {
    const dataDir = path.join(root, 'data');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'key-encryption-secret'), 'made-by-the-server\n');
    expect(loadConfig({ DATA_DIR: dataDir }).keyEncryptionSecret).toBe('made-by-the-server');
    const first = loadConfig({ DATA_DIR: path.join(root, 'other') });
    const second = loadConfig({ DATA_DIR: path.join(root, 'other') });
    expect(second.keyEncryptionSecret).toBe(first.keyEncryptionSecret);
  });

  it('is KEY_ENCRYPTION_SECRET when set, and then nothing is written', () => {
    const dataDir = path.join(root, 'data');
    expect(loadConfig({ DATA_DIR: dataDir, KEY_ENCRYPTION_SECRET: 'from-the-environment' }).keyEncryptionSecret).toBe('from-the-environment');
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
