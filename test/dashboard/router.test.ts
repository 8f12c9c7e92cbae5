// The dashboard served by `strata router` (in process, over real shard servers on loopback), in
// headless Chromium: a search from the page answers the ids the router's API answers, and in place
// of the cost (the router refuses with_stats: each shard measures its own search) the page says so,
// with no console error.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp.js';
import { http } from '../server/fixture.js';
import { type RouterCluster, startRouterCluster } from '../server/router-cluster.js';
import { chromiumPath, launch, watchedPage } from './browser.js';

const skip = chromiumPath() === null;
const tmp = makeTempDir('strata-dashboard-router-');
let cluster: RouterCluster | undefined;
let browser: Browser;
let page: Page;
let errors: string[];

describe.skipIf(skip)('the dashboard through a router', () => {
  beforeAll(async () => {
    cluster = await startRouterCluster(tmp, 2);
    expect((await http(cluster.url, 'PUT', '/collections/notes', { vectors: { size: 4, distance: 'Cosine' } })).status).toBe(200);
    const points = Array.from({ length: 40 }, (_, i) => ({ id: i, vector: [1, i, i % 4, 1], payload: { n: i } }));
    expect((await http(cluster.url, 'PUT', '/collections/notes/points?wait=true', { points })).status).toBe(200);
    browser = await launch();
    ({ page, errors } = await watchedPage(browser));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.close();
    tmp.cleanup();
  });

  it("searches by a point id, answering the router's ids, and says why it shows no cost", async () => {
    await page.goto(`${cluster!.url}/dashboard/#/search/notes?id=7`);
    await page.getByLabel('Limit').fill('5');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('hits').waitFor({ timeout: 15_000 });
    const shown = await page.locator('[data-testid="hits"] tr[data-hit]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-hit')));
    const answer = await http(cluster!.url, 'POST', '/collections/notes/points/query', { query: 7, limit: 5, params: { hnsw_ef: 64 } });
    expect(shown).toEqual((answer.body as { result: { points: Array<{ id: number }> } }).result.points.map((p) => String(p.id)));
    expect(await page.getByTestId('cost-note').textContent()).toMatch(/each shard measures its own search/);
    expect(errors).toEqual([]);
  });
});
