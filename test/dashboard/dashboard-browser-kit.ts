import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { type Browser, type Page, chromium } from 'playwright-core';
import { signInLink } from './dashboard-helpers';

/**
 * The real browser the dashboard's browser tests drive through playwright-core: `CHROMIUM_PATH`,
 * else Debian's `chromium-headless-shell`, else Debian's `chromium`. The headless shell is
 * Chromium's own build for automation (the one Playwright itself picks for headless runs): the same
 * Blink and V8 at the same version, at about a third of the CPU of full Chromium's headless mode
 * (docs/development/testing.md). `FULL_CHROMIUM` runs one smoke test, so the browser merchants use is covered too.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((file) => fs.existsSync(file)) ?? '/usr/bin/chromium';
export const FULL_CHROMIUM = process.env.FULL_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** `describe` where `browser` is installed; skipped, saying so, where it is not. */
function describeWhereInstalled(browser: string, install: string): typeof describe {
  if (fs.existsSync(browser)) return describe;
  console.warn(`SKIPPED: the dashboard's browser tests need ${browser} (${install})`);
  return describe.skip;
}
export const describeInBrowser = describeWhereInstalled(CHROMIUM, 'apt-get install chromium-headless-shell chromium, or set CHROMIUM_PATH');
export const describeInFullChromium = describeWhereInstalled(FULL_CHROMIUM, 'apt-get install chromium, or set FULL_CHROMIUM_PATH');

/**
 * Where the pages' screenshots go, for a person to look at: UPDATE_SCREENSHOTS=1 refreshes the
 * committed ones in docs/screenshots, DASHBOARD_SCREENSHOTS=<folder> writes them there; otherwise
 * none are taken. No test reads them, and the 21 full-page captures were ~10 CPU-s of `npm test`.
 */
export const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(__dirname, '../../docs/screenshots') : process.env.DASHBOARD_SCREENSHOTS || null;

/** Chromium, headless, with the screenshots folder ready. */
export async function launchBrowser(executablePath = CHROMIUM): Promise<Browser> {
  if (SCREENSHOTS) fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath, args: ['--no-sandbox'] });
}

/** Signs the page in as a merchant does: the CLI's one-time link, then its Sign in button. */
export async function signIn(page: Page, db: Knex, brandId: string, origin: string): Promise<void> {
  const { url } = await signInLink(db, brandId, origin);
  await page.goto(url.toString());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/dashboard`);
}

/** A full-page screenshot named `name`, where SCREENSHOTS says; nothing when it is not set. */
export async function shot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The figure shown for a metric (`data-metric="…"`). */
export const cell = (page: Page, metric: string) => page.locator(`[data-metric="${metric}"]`).innerText();
