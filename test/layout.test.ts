// The folder layout is a dependency rule, not only a filing system: imports flow one way (server →
// engine → storage → index → tiers; datasets/ and common/ are leaves), so that a folder can be read, tested
// and reused without what sits above it. This test reads every import and holds the rule.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../common/paths.js';

const ROOT = projectRoot();

/** Which top-level folders each folder's code may import from (besides itself). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  common: [],
  datasets: ['common'],
  tiers: ['common'],
  index: ['common', 'datasets', 'tiers'],
  storage: ['common', 'datasets', 'index', 'tiers'],
  engine: ['common', 'datasets', 'index', 'storage', 'tiers'],
  server: ['common', 'datasets', 'engine', 'index', 'storage', 'tiers'],
  loadgen: ['common', 'datasets'],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.as.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !relative(ROOT, f).split('/').includes('node_modules'));
}

/** Top-level folders a file imports from (relative specifiers only: packages are not layers). */
function importedFolders(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out = new Set<string>();
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)) {
    const top = relative(ROOT, resolve(dirname(file), m[1]!)).split('/')[0]!;
    out.add(top);
  }
  return [...out];
}

describe('layout', () => {
  for (const [folder, allowed] of Object.entries(MAY_IMPORT)) {
    it(`${folder}/ imports from ${allowed.length > 0 ? allowed.join(', ') : 'no other folder'} only`, () => {
      const wrong: string[] = [];
      for (const f of sources(join(ROOT, folder))) {
        for (const top of importedFolders(f)) {
          if (top !== folder && !allowed.includes(top)) wrong.push(`${relative(ROOT, f)} → ${top}/`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }
});
