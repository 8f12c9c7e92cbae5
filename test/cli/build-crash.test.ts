// `strata build --force` killed (SIGKILL) at each dangerous step of replacing an index: an index,
// the old one or the new one, must always be at --out and load, with the atomic exchange
// (renameat2 through the addon) and with the fallback (two renames and an intent record). The next
// build into the same directory removes what the killed builds left behind.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFvecs } from '../../datasets/index.js';
import { loadIndex, readManifest } from '../../index/format/load-index.js';
import type { CrashStep } from '../../index/format/crash-point.js';
import { exchangePaths } from '../../tiers/numa.js';
import { BIN, ensureBuilt, ROOT } from '../helpers/cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

const DIM = 8;
const OLD_COUNT = 150;
const NEW_COUNT = 250;

let tmp: TempDir;
let oldData: string;
let newData: string;
/** An index of OLD_COUNT vectors, copied to every case's --out. */
let original: string;

function build(input: string, out: string, env: Record<string, string> = {}) {
  const e: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete e['STRATA_KERNELS'];
  const r = spawnSync(process.execPath, [BIN, 'build', input, '--out', out, '--m', '4', '--ef-construction', '16', '--profile-samples', '20', '--force'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: e,
    timeout: 120_000,
  });
  if (r.error) throw r.error;
  return r;
}

async function vectors(file: string, count: number, seed: number): Promise<string> {
  const v = new Float32Array(count * DIM);
  for (let i = 0; i < v.length; i++) v[i] = Math.sin(seed * 1000 + i * 0.7) * 10;
  await writeFvecs(file, v, DIM);
  return file;
}

/** Whether renameat2(RENAME_EXCHANGE) works here (addon built, kernel and filesystem support it). */
function canExchange(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'strata-exchange-'));
  try {
    mkdirSync(join(probe, 'a'));
    mkdirSync(join(probe, 'b'));
    return exchangePaths(join(probe, 'a'), join(probe, 'b')).exchanged;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const temporaries = (dir: string): string[] => readdirSync(dir).filter((n) => n.includes('.tmp-') || n.includes('.strata-swap'));

beforeAll(async () => {
  ensureBuilt();
  tmp = makeTempDir('strata-crash-');
  oldData = await vectors(tmp.path('old.fvecs'), OLD_COUNT, 1);
  newData = await vectors(tmp.path('new.fvecs'), NEW_COUNT, 2);
  original = tmp.path('seed', 'idx');
  const r = build(oldData, original);
  expect(r.status, r.stderr).toBe(0);
}, 120_000);

afterAll(() => tmp?.cleanup());

// What a kill at each step must leave at --out: 'old' or 'new' (both are correct; which one is fixed
// by the step). 'between-renames' exists only on the fallback path.
// All cases share one parent directory, as successive builds would: each build also clears what the
// previous killed one left there, and the last one's leftovers are checked at the end.
const CASES: Array<['exchange' | 'fallback', CrashStep, 'old' | 'new']> = [
  ['exchange', 'writing', 'old'],
  ['exchange', 'before-swap', 'old'],
  ['exchange', 'after-swap', 'new'],
  ['fallback', 'before-swap', 'old'],
  ['fallback', 'between-renames', 'new'],
  ['fallback', 'after-swap', 'new'],
];
const MODE_ENV = { exchange: {}, fallback: { STRATA_TEST_NO_EXCHANGE: '1' } };

describe('build --force killed while replacing an index', () => {
  it.each(CASES)('%s path, SIGKILL at %s: the %s index is at --out and loads', (mode, step, expected) => {
    const out = tmp.path('crash', `idx-${mode}-${step}`);
    cpSync(original, out, { recursive: true });
    const r = build(newData, out, { ...MODE_ENV[mode], STRATA_TEST_KILL_AT: step });
    expect(r.signal, `${r.stdout}\n${r.stderr}`).toBe('SIGKILL');
    // Loading (through readManifest, as serve and verify do) finds an index, moving it back if needed.
    expect(readManifest(out).count).toBe(expected === 'new' ? NEW_COUNT : OLD_COUNT);
    const { index } = loadIndex(out);
    expect(index.meta.count).toBe(expected === 'new' ? NEW_COUNT : OLD_COUNT);
  });

  it.skipIf(!canExchange())('with the exchange available, never reaches the fallback step between two renames', () => {
    const out = tmp.path('no-gap', 'idx');
    cpSync(original, out, { recursive: true });
    const r = build(newData, out, { STRATA_TEST_KILL_AT: 'between-renames' });
    expect(r.status, r.stderr).toBe(0);
    expect(loadIndex(out).index.meta.count).toBe(NEW_COUNT);
  });

  it('the next build into the directory removes every temporary the killed builds left', () => {
    const parent = tmp.path('crash');
    expect(temporaries(parent).length).toBeGreaterThan(0);
    const r = build(newData, tmp.path('crash', 'idx-next'));
    expect(r.status, r.stderr).toBe(0);
    expect(temporaries(parent)).toEqual([]);
    for (const [mode, step, expected] of CASES) {
      const out = tmp.path('crash', `idx-${mode}-${step}`);
      expect(existsSync(out)).toBe(true);
      expect(readManifest(out).count).toBe(expected === 'new' ? NEW_COUNT : OLD_COUNT);
    }
  });
});
