import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';

// The theme app extension as Shopify's CLI reads it: its toml, and the app embed block's schema.
const extension = path.join(__dirname, '../../extensions/referrals-embed');
const appToml = parse(fs.readFileSync(path.join(__dirname, '../../shopify.app.toml'), 'utf8')) as any;
const origin = new URL(appToml.application_url).origin;

describe('the theme app extension (extensions/referrals-embed)', () => {
  const toml = parse(fs.readFileSync(path.join(extension, 'shopify.extension.toml'), 'utf8')) as any;
  const blocks = fs.readdirSync(path.join(extension, 'blocks'));
  const liquid = fs.readFileSync(path.join(extension, 'blocks', 'referrals.liquid'), 'utf8');
  const schemaMatch = /{%\s*schema\s*%}([\s\S]*?){%\s*endschema\s*%}/.exec(liquid);

  it('is a theme extension with one block file', () => {
    expect(toml.type).toBe('theme');
    expect(toml.name).toBe('referrals-embed');
    expect(blocks).toEqual(['referrals.liquid']);
  });

  it('declares an app embed block (target body) whose settings are the brand id and the publishable key', () => {
    expect(schemaMatch).not.toBeNull();
    expect(liquid.match(/{%\s*schema\s*%}/g)).toHaveLength(1);
    const schema = JSON.parse(schemaMatch![1]!);
    expect(schema.target).toBe('body');
    expect(schema.name).toBe('Referral tracking');
    expect(schema.settings.map((setting: { id: string; type: string }) => [setting.id, setting.type])).toEqual([
      ['brand_id', 'text'],
      ['publishable_key', 'text'],
    ]);
  });

  it('loads referrals.js from the app\'s host with data-brand and data-key from those settings, only once both are set', () => {
    const body = liquid.slice(0, schemaMatch!.index);
    const scripts = body.match(/<script[\s\S]*?<\/script>/g) ?? [];
    expect(scripts).toHaveLength(1);
    const script = scripts[0]!;
    expect(script).toContain(`src="${origin}/referrals.js"`);
    expect(script).toContain('data-brand="{{ block.settings.brand_id | escape }}"');
    expect(script).toContain('data-key="{{ block.settings.publishable_key | escape }}"');
    expect(script).toMatch(/\sasync\s/);
    expect(body).toMatch(/{%-? if block\.settings\.brand_id != blank and block\.settings\.publishable_key != blank -?%}/);
    // No secret key, ever: the block holds the publishable key only.
    expect(liquid).not.toMatch(/rk_[A-Za-z0-9]/);
  });
});
