import type { Knex } from 'knex';
import supertest from 'supertest';
import { runCli } from '../../server/cli/run-cli';
import type { App } from '../../server/app';
import { testConfig } from '../helpers/test-app';

/** A one-time sign-in link, printed by `referrals dashboard login --brand ID --json` as a merchant runs it. */
export async function signInLink(db: Knex, brandId: string, publicUrl = 'http://127.0.0.1'): Promise<{ url: URL; expires_at: string }> {
  const run = await runCli(['dashboard', 'login', '--brand', brandId, '--json'], { db, config: testConfig({ publicUrl }), isTTY: false, progress: () => undefined });
  expect(run.code).toBe(0);
  const printed = JSON.parse(run.stdout);
  return { url: new URL(printed.url), expires_at: printed.expires_at };
}

/** A browser-like client (keeps cookies) signed in to the brand's dashboard through a fresh link. */
export async function signedInAgent(app: App, db: Knex, brandId: string) {
  const agent = supertest.agent(app.callback());
  const { url } = await signInLink(db, brandId);
  const posted = await agent.post('/dashboard/login').type('form').send({ brand: url.searchParams.get('brand'), token: url.searchParams.get('token') });
  expect(posted.status).toBe(303);
  return agent;
}

/** The CSRF token a page's forms carry. */
export function csrfTokenOf(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}

/** The figure shown for a metric on the overview (`<dd data-metric="revenue">1,234.50</dd>`). */
export function metric(html: string, name: string): string {
  const match = new RegExp(`data-metric="${name}">([^<]*)<`).exec(html);
  if (!match) throw new Error(`no metric ${name} on the page`);
  return match[1]!;
}

/** Expects the overview to show these figures (metric name → text), all compared at once. */
export function expectMetrics(html: string, expected: Record<string, string>): void {
  expect(Object.fromEntries(Object.keys(expected).map((name) => [name, metric(html, name)]))).toEqual(expected);
}

/** The settings page's form as a browser would post it unchanged: text inputs, ticked checkboxes, selected options. */
export function settingsFormOf(html: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="text" id="setting-([a-z_]+)" name="[a-z_]+" value="([^"]*)"/g)) form[match[1]!] = match[2]!;
  for (const match of html.matchAll(/<input type="checkbox" id="setting-([a-z_]+)" name="[a-z_]+" checked/g)) form[match[1]!] = 'on';
  for (const match of html.matchAll(/<select id="setting-([a-z_]+)" name="[a-z_]+"[^>]*>[\s\S]*?<option value="([^"]+)" selected/g)) form[match[1]!] = match[2]!;
  return form;
}
