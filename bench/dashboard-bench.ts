// The dashboard, for its docs and its cost: `strata serve --demo` with a data directory (the demo
// collection and a small writable one), every page captured in headless Chromium into docs/dashboard/,
// then what the live page's polling costs the server: `strata loadgen` QPS with no page open and with
// the tiers page open in Chromium, alternately, side by side in one run.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { type Browser, chromium, type Page } from 'playwright-core';
import { run, type Served, serveDemo, stop } from './lib/strata-children.js';

const o = new Command()
  .option('--shots <dir>', 'where the page captures go (empty: none)', 'docs/dashboard')
  .option('--duration <s>', 'seconds per load step', Number, 8)
  .option('--rounds <n>', 'pairs of steps (no page, page), alternating', Number, 2)
  .option('--chromium <path>', "Chromium's executable", '/usr/bin/chromium')
  .option('--json <file>', 'also write the figures as JSON')
  .parse(process.argv)
  .opts<{ shots: string; duration: number; rounds: number; chromium: string; json?: string }>();

const log = (line: string): void => void process.stderr.write(`dashboard: ${line}\n`);
const DEMO = '.strata/demo/data-20000';

async function api(s: Served, method: string, path: string, body?: unknown): Promise<unknown> {
  const r = await fetch(`${s.rest}${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { result: unknown }).result;
}

/** One closed-loop load step: QPS. */
async function load(s: Served, tmp: string, label: string): Promise<number> {
  const report = join(tmp, `${label}.json`);
  await run(
    ['loadgen', '--url', s.rest, '--collection', 'demo', '-q', join(DEMO, 'query.fvecs'), '--gt', join(DEMO, 'groundtruth.ivecs')].concat([
      '--concurrency',
      '16',
      '--ef',
      '64',
      '--duration',
      String(o.duration),
      '--warmup',
      '500',
      '--no-progress',
      '--report',
      report,
    ]),
  );
  return (JSON.parse(readFileSync(report, 'utf8')) as { results: Array<{ qps: number }> }).results[0]!.qps;
}

async function capture(page: Page, s: Served, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const shot = async (name: string, hash: string, before?: () => Promise<void>) => {
    await page.goto(`${s.rest}/dashboard/#${hash}`);
    await page.waitForTimeout(500);
    await before?.();
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
    log(`captured ${name}`);
  };
  await shot('collections', '/collections', () => page.locator('[data-testid="memory"]').first().waitFor());
  await shot('points', '/points/notes');
  await shot('search', '/search/demo?id=7', async () => {
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('hits').waitFor();
  });
  await shot('tiers', '/tiers/demo', () => page.waitForTimeout(4500));
  await shot('quality', '/quality/demo', async () => {
    await page.getByRole('button', { name: 'Measure' }).click();
    await page.getByTestId('quality').waitFor();
  });
  await shot('snapshots', '/snapshots/notes', () => page.getByTestId('snapshots').waitFor());
}

const tmp = mkdtempSync(join(tmpdir(), 'strata-dashboard-bench-'));
let browser: Browser | null = null;
const s = await serveDemo(join(tmp, 'data'), { threads: 1 });
try {
  await api(s, 'PUT', '/collections/notes', { vectors: { size: 8, distance: 'Cosine' } });
  const points = Array.from({ length: 200 }, (_, i) => ({
    id: i,
    vector: Array.from({ length: 8 }, (_, d) => Math.cos(i * (d + 1))),
    payload: { title: `note ${i}`, topic: ['cats', 'rockets', 'bread'][i % 3], n: i },
  }));
  await api(s, 'PUT', '/collections/notes/points?wait=true', { points });
  await api(s, 'POST', '/collections/notes/snapshots');
  browser = await chromium.launch({ executablePath: o.chromium, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Some load first, so that the live page has a history to draw.
  await load(s, tmp, 'warm');
  if (o.shots !== '') await capture(page, s, o.shots);
  await page.goto('about:blank');
  const rows: Array<{ round: number; without: number; with: number }> = [];
  for (let r = 0; r < o.rounds; r++) {
    const without = await load(s, tmp, `without-${r}`);
    await page.goto(`${s.rest}/dashboard/#/tiers/demo`);
    const withPage = await load(s, tmp, `with-${r}`);
    await page.goto('about:blank');
    rows.push({ round: r, without, with: withPage });
    log(`round ${r}: ${without.toFixed(0)} QPS without the page, ${withPage.toFixed(0)} with the tiers page polling (${(withPage / without).toFixed(3)})`);
  }
  const sum = (k: 'without' | 'with') => rows.reduce((a, x) => a + x[k], 0);
  const ratio = sum('with') / sum('without');
  process.stdout.write(`16 clients, ef 64, ${o.duration} s a step, ${o.rounds} rounds: with the tiers page open ${ratio.toFixed(3)} of the QPS without it\n`);
  if (o.json) writeFileSync(o.json, `${JSON.stringify({ date: new Date().toISOString(), duration: o.duration, rows, ratio }, null, 2)}\n`);
} finally {
  await browser?.close();
  await stop(s);
  rmSync(tmp, { recursive: true, force: true });
}
