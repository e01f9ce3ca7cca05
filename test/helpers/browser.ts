import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestApp } from './app.js';

/**
 * The console's end-to-end tests drive Debian's Chromium (`apt-get install chromium`; .ci/run does
 * it) through playwright-core. One browser per test file; each test opens its own context.
 */
export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** A fresh browser profile (own cookies) on a page of the console, signed in through the form. */
export async function signedInPage(browser: Browser, t: TestApp, viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ viewport });
  // Well under the test's own timeout, so a missing element fails with its locator named.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await signIn(page, t);
  return page;
}

export async function signIn(page: Page, t: TestApp, key = t.apiKey): Promise<void> {
  await page.goto(`${t.url}/login`);
  await page.fill('#api_key', key);
  // Settled once the form's redirect has landed: the console, or the login page saying no.
  await Promise.all([
    page.waitForURL((url) => url.pathname === '/' || url.search === '?error=1', { waitUntil: 'load' }),
    page.click('button[type="submit"]'),
  ]);
}

/** Opens a panel the way an operator does: by its link in the panel list. */
export async function openPanel(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: label, exact: true }).click();
  await page.locator('#panel-title').waitFor();
}

/** Waits until no part of the panel still says "Loading…" (a panel may load several parts at once). */
export async function untilLoaded(page: Page): Promise<void> {
  // `first()` is detached only when no element matches at all.
  await page.getByText('Loading…', { exact: true }).first().waitFor({ state: 'detached' });
}

/**
 * The value of `expression` evaluated in the page (awaited when it is a promise). Page code is
 * given as text: the tests compile for Node, without the browser's globals.
 */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/** Pretends the tab was hidden or shown again, as the browser announces it. */
export function setTabHidden(page: Page, hidden: boolean): Promise<void> {
  return inPage(page, `Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
    document.dispatchEvent(new Event('visibilitychange'))`);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's serious and critical findings on the page as it is now. The engine is evaluated
 * through the DevTools protocol from node_modules, so the page's CSP (which refuses inline
 * scripts) stays in force and nothing is fetched from elsewhere.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await inPage<AxeViolation[]>(page, `axe.run(document).then((result) => result.violations.map((v) => (
    { id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) })))`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
