// `strata build` must never destroy what is not an index, and must reject what it can judge up
// front before reading or building anything (bad --dram-budget, an unwritable --out).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFvecs } from '../../datasets/index.js';
import { loadIndex } from '../../index/format/load-index.js';
import { BIN, ensureBuilt, ROOT, strata, type CliResult } from '../helpers/cli.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

const DIM = 8;
let tmp: TempDir;
let data: string;
let idx: string;

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const FAST = ['--m', '4', '--ef-construction', '16', '--profile-samples', '20'];

function expectFailure(r: CliResult, code: string, ...mentions: string[]): void {
  expect(r.status, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`).toBe(2);
  expect(r.stderr).toContain(code);
  for (const m of mentions) expect(r.stderr).toContain(m);
}

beforeAll(async () => {
  ensureBuilt();
  tmp = makeTempDir('strata-build-safety-');
  chmodSync(tmp.dir, 0o755); // readable by the unprivileged user of the EACCES test
  data = tmp.path('data.fvecs');
  const v = new Float32Array(200 * DIM);
  for (let i = 0; i < v.length; i++) v[i] = Math.cos(i * 0.37) * 5;
  await writeFvecs(data, v, DIM);
  idx = tmp.path('idx');
  const r = strata(['build', data, '--out', idx, ...FAST]);
  expect(r.status, r.stderr).toBe(0);
}, 120_000);

afterAll(() => tmp?.cleanup());

describe('build --force replaces only an index directory', () => {
  it('refuses --out naming the input file itself, and the input is unchanged', () => {
    const before = sha256(data);
    const r = strata(['build', data, '--out', data, '--force', ...FAST]);
    expectFailure(r, 'STRATA_INDEX_EXISTS', data, 'is the input file itself');
    expect(sha256(data)).toBe(before);
  });

  it('refuses a directory of user files, naming it, and leaves the files alone', () => {
    const mine = tmp.path('mine');
    mkdirSync(mine);
    writeFileSync(join(mine, 'thesis.tex'), 'precious');
    const r = strata(['build', data, '--out', mine, '--force', ...FAST]);
    expectFailure(r, 'STRATA_INDEX_EXISTS', mine, 'without a Strata manifest.json');
    expect(readdirSync(mine)).toEqual(['thesis.tex']);
    expect(readFileSync(join(mine, 'thesis.tex'), 'utf8')).toBe('precious');
  });

  it('refuses an index directory that holds the input', () => {
    const copy = tmp.path('idx-with-input');
    cpSync(idx, copy, { recursive: true });
    const inside = join(copy, 'graph.bin');
    const r = strata(['build', inside, '--format', 'fvecs', '--out', copy, '--force', ...FAST]);
    expectFailure(r, 'STRATA_INDEX_EXISTS', copy, `holds the input ${inside}`);
    expect(loadIndex(copy).index.meta.count).toBe(200);
  });

  it('replaces an index directory', () => {
    const copy = tmp.path('idx-forced');
    cpSync(idx, copy, { recursive: true });
    const r = strata(['build', data, '--out', copy, '--force', '--limit', '120', ...FAST]);
    expect(r.status, r.stderr).toBe(0);
    expect(loadIndex(copy).index.meta.count).toBe(120);
  });
});

describe('build rejects what it can judge before reading the input', () => {
  // The input does not exist: an error about anything else proves it was raised before the read.
  const missing = (): string => tmp.path('no-such-input.fvecs');

  it.each(['10xb', '150%'])('a --dram-budget of %j is STRATA_DRAM_BUDGET before the input is opened', (budget) => {
    const r = strata(['build', missing(), '--out', tmp.path('never'), '--dram-budget', budget]);
    expectFailure(r, 'STRATA_DRAM_BUDGET');
    expect(r.stderr).not.toContain('no-such-input');
  });

  it('an --out whose directory is not writable is an error naming it before the input is opened', (ctx) => {
    const locked = tmp.path('locked');
    mkdirSync(locked);
    const out = join(locked, 'sub', 'idx');
    const args = [BIN, 'build', missing(), '--out', out];
    // As root permissions do not apply: run the command as an unprivileged user instead, which
    // needs a checkout that user can read (a clone inside a private mktemp directory is not).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      const probe = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(BIN)})`], { uid: 65534, gid: 65534 });
      if (probe.status !== 0) ctx.skip();
    }
    if (!asRoot) chmodSync(locked, 0o555);
    const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', ...(asRoot ? { uid: 65534, gid: 65534 } : {}) });
    expectFailure({ status: r.status, stdout: r.stdout, stderr: r.stderr }, 'STRATA_INVALID_ARGUMENT', `${locked} is not writable (EACCES)`, out);
    expect(r.stderr).not.toContain('no-such-input');
    expect(readdirSync(locked)).toEqual([]);
  });
});
