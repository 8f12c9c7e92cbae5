// Reads the AssemblyScript constants build-wasm.mjs generated from a layout table
// (index/kernels/<name>.generated.as.ts), for the tests holding each table and the WASM side equal.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/paths.js';

/** name → value of every `export const NAME: type = value;` in index/kernels/<name>.generated.as.ts. */
export function generatedConstants(name: string): Map<string, number> {
  const text = readFileSync(join(projectRoot(), 'index', 'kernels', `${name}.generated.as.ts`), 'utf8');
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^(?:@inline )?export const (\w+): \w+ = (\d+(?:\.\d+)?);$/gm)) out.set(m[1]!, Number(m[2]));
  return out;
}

/** The AssemblyScript name of a table field: prefix B and beamCap give B_BEAM_CAP. */
export const asName = (prefix: string, field: string): string => `${prefix}_${field.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
