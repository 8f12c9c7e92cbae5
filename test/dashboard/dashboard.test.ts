// The dashboard in a real browser (headless Chromium) against a real `strata serve`, serving the
// embedded demo and a writable collection in a data directory: every page opened, and what a person sees checked against the API —
// collection names and point counts, the memory of each part in each tier, a search's ids, a
// payload edited in the page, the quality measured, snapshots created, downloaded and restored, the
// live tiers page; the API-key prompt of a keyed server; and no console errors anywhere.
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/temp.js';
import { type ServeChild, serveChild } from '../server/serve-child.js';
import { chromiumPath, launch, watchedPage } from './browser.js';

const skip = chromiumPath() === null;
const tmp = makeTempDir('strata-dashboard-');
let s: ServeChild;
let browser: Browser;
let page: Page;
let errors: string[];
const WRITABLE = 'notes';
const DEMO = 'demo';
// `strata serve --demo`, built on the first start into this run's own directory and reused after.
const demo = (): string[] => ['--demo', '--demo-dir', tmp.path('demo'), '--no-grpc', '--no-qdrant-grpc', '--log-level', 'silent'];

async function api<T>(method: string, path: string, body?: unknown, base = s.rest, key?: string): Promise<T> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(key ? { 'api-key': key } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const j = (await r.json()) as { result: T; status: unknown };
  if (!r.ok) throw new Error(`${method} ${path}: ${JSON.stringify(j.status)}`);
  return j.result;
}

async function open(hash: string): Promise<void> {
  await page.goto(`${s.rest}/dashboard/#${hash}`);
}

afterAll(() => {
  tmp.cleanup();
});

describe.skipIf(skip)('dashboard in Chromium', () => {
  beforeAll(async () => {
    s = await serveChild([...demo(), '--data-dir', tmp.path('data')]);
    await api('PUT', `/collections/${WRITABLE}`, { vectors: { size: 4, distance: 'Cosine' } });
    await api('PUT', `/collections/${WRITABLE}/points?wait=true`, {
      points: Array.from({ length: 30 }, (_, i) => ({ id: i, vector: [1, i, i % 4, 1], payload: { title: `note ${i}`, n: i } })),
    });
    browser = await launch();
    ({ page, errors } = await watchedPage(browser));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    s?.child.kill('SIGKILL');
    await s?.exited;
  });

  it('shows every collection with the point count and the memory of each part in each tier the API gives', async () => {
    await open('/collections');
    const names = (await api<{ collections: Array<{ name: string }> }>('GET', '/collections')).collections.map((c) => c.name);
    expect(names.sort()).toEqual([DEMO, WRITABLE]);
    for (const name of names) {
      const card = page.locator(`section[data-collection="${name}"]`);
      const info = await api<{ points_count: number; status: string }>('GET', `/collections/${name}`);
      await expect.poll(() => card.getByTestId('points').textContent()).toBe(info.points_count.toLocaleString('en-US'));
      expect(await card.getByTestId('status').textContent()).toBe(info.status);
      const memory = await api<{ parts: Array<{ part: string; dram: number; cxl: number }>; total: { dram: number; cxl: number } }>(
        'GET',
        `/collections/${name}/memory`,
      );
      await expect.poll(() => card.locator('[data-testid="memory"] tr[data-part]').count()).toBe(memory.parts.length + 1);
      for (const p of [...memory.parts, { part: 'total', ...memory.total }]) {
        const cells = card.locator(`[data-testid="memory"] tr[data-part="${p.part}"] td[data-bytes]`);
        expect(await cells.evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-bytes'))))).toEqual([p.dram, p.cxl]);
      }
    }
    // The demo's index has tiers; its card lists them.
    expect(await page.locator('section[data-collection="demo"] [data-testid="tiers"] tbody tr').count()).toBe(2);
  });

  it('searches by a point id and answers the ids the API answers, with the search cost', async () => {
    await open('/search/demo?id=7');
    await page.getByLabel('Limit').fill('5');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('hits').waitFor();
    const shown = await page.locator('[data-testid="hits"] tr[data-hit]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-hit')));
    const answer = await api<{ points: Array<{ id: number }> }>('POST', '/collections/demo/points/query', { query: 7, limit: 5, params: { hnsw_ef: 64 } });
    expect(shown).toEqual(answer.points.map((p) => String(p.id)));
    expect(Number((await page.getByTestId('distances').textContent())!.replace(/,/g, ''))).toBeGreaterThan(0);
  });

  it('edits a payload in the Points page, and the API gives the new one', async () => {
    await open(`/points/${WRITABLE}`);
    const row = page.locator('tr[data-point="3"]');
    await row.getByRole('button', { name: 'Edit' }).click();
    await row.getByLabel('payload of 3').fill('{"title": "edited in the browser", "n": 3}');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row.getByTestId('payload').textContent()).toBe('{"title":"edited in the browser","n":3}');
    const [p] = await api<Array<{ payload: unknown }>>('POST', `/collections/${WRITABLE}/points`, { ids: [3], with_payload: true });
    expect(p!.payload).toEqual({ title: 'edited in the browser', n: 3 });
  });

  it('measures search quality: recall against exact search for each hnsw_ef', async () => {
    await open('/quality/demo');
    await page.getByRole('button', { name: 'Measure' }).click();
    await page.getByTestId('quality').waitFor();
    const recalls = await page.locator('[data-testid="quality"] td[data-recall]').evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-recall'))));
    expect(recalls).toHaveLength(5);
    for (const r of recalls) expect(r).toBeGreaterThanOrEqual(0);
    expect(recalls[recalls.length - 1]).toBeGreaterThan(0.9);
  });

  it('creates, lists, downloads and restores a snapshot', async () => {
    await open(`/snapshots/${WRITABLE}`);
    await page.getByRole('button', { name: 'Create a snapshot' }).click();
    // The snapshot is written on a worker thread: listed once the page's request has been answered.
    const snapshots = () => api<Array<{ name: string; size: number }>>('GET', `/collections/${WRITABLE}/snapshots`);
    await expect.poll(async () => (await snapshots()).length, { timeout: 10_000 }).toBe(1);
    const listed = await snapshots();
    const row = page.locator(`tr[data-snapshot="${listed[0]!.name}"]`);
    await row.waitFor();
    const [file] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Download' }).click()]);
    const path = await file.path();
    expect(readFileSync(path).length).toBe(listed[0]!.size);
    // A point deleted after the snapshot comes back when the page restores it.
    await api('POST', `/collections/${WRITABLE}/points/delete?wait=true`, { points: [5] });
    expect((await api<{ count: number }>('POST', `/collections/${WRITABLE}/points/count`, {})).count).toBe(29);
    await page.locator('input[name="restore"]').setInputFiles(path);
    await page.getByRole('status').waitFor();
    expect((await api<{ count: number }>('POST', `/collections/${WRITABLE}/points/count`, {})).count).toBe(30);
  });

  it('draws the live tiers page from the tier history, with the promotion pool the API reports', async () => {
    for (let i = 0; i < 20; i++) await api('POST', '/collections/demo/points/query', { query: i, limit: 5 });
    await open('/tiers/demo');
    await expect.poll(() => page.locator('.chart canvas').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    const info = await api<{ strata: { placement: { promotion_pool: { slots: number; tenants: number } } } }>('GET', '/collections/demo');
    const pool = info.strata.placement.promotion_pool;
    await expect.poll(() => page.getByText(`${pool.tenants} of ${pool.slots} slots`).count()).toBe(1);
    // The history takes a sample a second; the page shows the last one once it has it.
    await expect
      .poll(async () => (await api<{ samples: unknown[] }>('GET', '/collections/demo/tiers/history')).samples.length, { timeout: 5000 })
      .toBeGreaterThan(0);
    await expect.poll(() => page.getByText('no sample yet').count(), { timeout: 6000 }).toBe(0);
    // The hottest lists shown are the history's, most read first.
    const hot = (await api<{ hottest_lists: Array<{ point: number; reads: number }> }>('GET', '/collections/demo/tiers/history')).hottest_lists;
    expect(hot.length).toBeGreaterThan(0);
    await expect
      .poll(() => page.locator('[data-testid="hottest"] tr[data-point]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-point'))), {
        timeout: 6000,
      })
      .toEqual(hot.map((h) => String(h.point)));
  });

  it('lists every dense vector of a collection, the tiered primary first', async () => {
    await api('PUT', '/collections/multi', { vectors: { text: { size: 4, distance: 'Cosine' }, image: { size: 8, distance: 'Euclid' } } });
    try {
      await open('/collections');
      const card = page.locator('section[data-collection="multi"]');
      await expect.poll(() => card.getByTestId('vectors').textContent()).toBe('text: 4-d, Cosine (tiered); image: 8-d, Euclid (DRAM graph)');
    } finally {
      await api('DELETE', '/collections/multi');
    }
  });

  it('searches by any of the vectors, each as the API answers it, with the cost only for the tiered one', async () => {
    await api('PUT', '/collections/hybrid', {
      vectors: { text: { size: 4, distance: 'Cosine' }, image: { size: 3, distance: 'Euclid' } },
      sparse_vectors: { words: {} },
    });
    try {
      await api('PUT', '/collections/hybrid/points?wait=true', {
        points: Array.from({ length: 40 }, (_, i) => ({
          id: i,
          vector: { text: [1, i % 7, i % 3, 2], image: [i, (i * 7) % 11, 1], words: { indices: [i % 5, 5 + (i % 3)], values: [1, i / 10] } },
        })),
      });
      await open('/search/hybrid?id=3');
      const ids = () => page.locator('[data-testid="hits"] tr[data-hit]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-hit')));
      const cases: Array<[string, Record<string, unknown>]> = [
        ['image', { params: { hnsw_ef: 64 } }],
        ['words', {}],
      ];
      for (const [using, extra] of cases) {
        await page.locator('select[name="using"]').selectOption(using);
        await page.getByLabel('Limit').fill('5');
        await page.getByRole('button', { name: 'Search' }).click();
        const answer = await api<{ points: Array<{ id: number }> }>('POST', '/collections/hybrid/points/query', { query: 3, using, limit: 5, ...extra });
        await expect.poll(ids).toEqual(answer.points.map((p) => String(p.id)));
        expect(await page.getByTestId('cost-note').textContent()).toMatch(/tiered vector only/);
      }
      await page.locator('select[name="using"]').selectOption('text');
      await page.getByRole('button', { name: 'Search' }).click();
      const answer = await api<{ points: Array<{ id: number }> }>('POST', '/collections/hybrid/points/query', {
        query: 3,
        using: 'text',
        limit: 5,
        params: { hnsw_ef: 64 },
      });
      await expect.poll(ids).toEqual(answer.points.map((p) => String(p.id)));
      await page.getByTestId('distances').waitFor();
    } finally {
      await api('DELETE', '/collections/hybrid');
    }
  });

  it('met no console error on any page', () => {
    expect(errors).toEqual([]);
  });
});

describe.skipIf(skip)('dashboard with an API key', () => {
  it('asks for the key, then shows the collections with it; the assets need none', async () => {
    const keyed = await serveChild(demo(), { STRATA_API_KEY: 'sesame' });
    const b = await launch();
    try {
      expect((await fetch(`${keyed.rest}/dashboard/`)).status).toBe(200);
      expect((await fetch(`${keyed.rest}/collections`)).status).toBe(401);
      const { page: p, errors: e } = await watchedPage(b);
      await p.goto(`${keyed.rest}/dashboard/#/collections`);
      await p.getByLabel('API key').fill('sesame');
      await p.getByRole('button', { name: 'Use key' }).click();
      await p.locator('section[data-collection="demo"] [data-testid="points"]').waitFor();
      expect(await p.locator('section[data-collection]').count()).toBe(1);
      // A wrong key is asked for again.
      await p.evaluate(() => sessionStorage.setItem('strata-api-key', 'wrong'));
      await p.reload();
      await p.getByLabel('API key').waitFor();
      expect(e.filter((x) => !x.includes('401'))).toEqual([]);
    } finally {
      await b.close();
      keyed.child.kill('SIGKILL');
      await keyed.exited;
    }
  });
});

describe.skipIf(skip)('dashboard accessibility', () => {
  it('passes axe on every page (no serious or critical violation), and searches by keyboard alone', async () => {
    const server = await serveChild(demo());
    const b = await launch();
    try {
      const { page: p } = await watchedPage(b);
      for (const hash of ['/collections', '/points/demo', '/search/demo', '/tiers/demo', '/quality/demo', '/snapshots/demo']) {
        await p.goto(`${server.rest}/dashboard/#${hash}`);
        await p.locator('main h1').waitFor();
        await p.waitForTimeout(300);
        const found = await new AxeBuilder({ page: p }).analyze();
        const bad = found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${hash}: ${v.id} (${v.nodes.length})`);
        expect(bad).toEqual([]);
      }
      // Keyboard only: into the id field, type, Tab to the Search button, Enter.
      await p.goto(`${server.rest}/dashboard/#/search/demo`);
      await p.getByLabel('Point id').focus();
      await p.keyboard.type('11');
      let steps = 0;
      while (!(await p.getByRole('button', { name: 'Search' }).evaluate((el) => el === document.activeElement)) && steps++ < 20) await p.keyboard.press('Tab');
      await p.keyboard.press('Enter');
      await p.getByTestId('hits').waitFor();
      expect(await p.locator('[data-testid="hits"] tr[data-hit]').count()).toBe(10);
    } finally {
      await b.close();
      server.child.kill('SIGKILL');
      await server.exited;
    }
  });
});
