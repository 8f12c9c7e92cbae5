// The folder layout is a dependency rule, not only a filing system: imports flow one way (server →
// engine → storage → index → tiers; datasets/ and common/ are leaves), so that a folder can be read, tested
// and reused without what sits above it. The server sees the layers beneath it only through the
// engine's public module, engine/public.ts: it imports from common/ and that one file, so the engine,
// storage and index can rearrange their modules without the server following. This test reads every
// import and holds both rules.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../common/paths.js';

const ROOT = projectRoot();

/**
 * Which top-level folders each folder's code may import from (besides itself); `folder/sub` allows
 * that sub-folder only. The load generator judges filtered answers by Qdrant's filter semantics, so it
 * reads filters with index/filter (a leaf over common/) and nothing else of the index.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  common: [],
  datasets: ['common'],
  tiers: ['common'],
  index: ['common', 'datasets', 'tiers'],
  storage: ['common', 'datasets', 'index', 'tiers'],
  engine: ['common', 'datasets', 'index', 'storage', 'tiers'],
  server: ['common', 'engine'],
  loadgen: ['common', 'datasets', 'index/filter'],
  // The dashboard runs in the browser: it reaches the server through its HTTP API only.
  dashboard: [],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.as.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !relative(ROOT, f).split('/').includes('node_modules'));
}

/** What a file imports, as paths from the project root (relative specifiers only: packages are not layers). */
function importedPaths(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => relative(ROOT, resolve(dirname(file), m[1]!)));
}

/** The one engine module the server may import. */
const ENGINE_FACE = 'engine/public.js';

describe('layout', () => {
  for (const [folder, allowed] of Object.entries(MAY_IMPORT)) {
    it(`${folder}/ imports from ${allowed.length > 0 ? allowed.join(', ') : 'no other folder'} only`, () => {
      const wrong: string[] = [];
      for (const f of sources(join(ROOT, folder))) {
        for (const p of importedPaths(f)) {
          const top = p.split('/')[0]!;
          if (top !== folder && !allowed.some((a) => a === top || p.startsWith(`${a}/`))) wrong.push(`${relative(ROOT, f)} → ${p}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it(`server/ reaches the engine through ${ENGINE_FACE} only`, () => {
    const wrong: string[] = [];
    for (const f of sources(join(ROOT, 'server'))) {
      for (const p of importedPaths(f)) {
        if (p.startsWith('engine/') && p !== ENGINE_FACE) wrong.push(`${relative(ROOT, f)} → ${p}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
