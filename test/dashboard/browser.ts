// Debian's headless Chromium driven by playwright-core (no browser download): the one the
// dashboard's tests open pages in. `chromiumPath()` is null where there is none: the tests skip.
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

const CANDIDATES = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function chromiumPath(): string | null {
  return CANDIDATES.find((p): p is string => p !== undefined && p !== '' && existsSync(p)) ?? null;
}

export function launch(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath()!, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A page that records every console error and uncaught exception it meets. */
export async function watchedPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  // A context of its own (axe needs one it can reach), the page in it.
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}
