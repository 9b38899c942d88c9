import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { type Browser, type Page, chromium } from 'playwright-core';
import { signInLink } from './dashboard-helpers';

/** A real browser for the dashboard's browser tests: Debian's Chromium (apt-get install chromium), driven by playwright-core. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(`SKIPPED: the dashboard's browser tests need Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
}
/** `describe` where Chromium is installed; skipped, saying so above, where it is not. */
export const describeInBrowser = haveChromium ? describe : describe.skip;

// UPDATE_SCREENSHOTS=1 refreshes the committed ones in docs/screenshots; otherwise they go to a temporary folder.
export const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(__dirname, '../../docs/screenshots') : path.join(os.tmpdir(), 'dashboard-screenshots');

/** Chromium, headless, with the screenshots folder ready. */
export async function launchBrowser(): Promise<Browser> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Signs the page in as a merchant does: the CLI's one-time link, then its Sign in button. */
export async function signIn(page: Page, db: Knex, brandId: string, origin: string): Promise<void> {
  const { url } = await signInLink(db, brandId, origin);
  await page.goto(url.toString());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/dashboard`);
}

export const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

/** The figure shown for a metric (`data-metric="…"`). */
export const cell = (page: Page, metric: string) => page.locator(`[data-metric="${metric}"]`).innerText();
