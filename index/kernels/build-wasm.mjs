// Compiles the AssemblyScript distance kernels to dist/kernels/distance.wasm (SIMD, imported
// shared memory). Run by `npm run build`; the output is a build artifact, not checked in.
import { main } from 'assemblyscript/asc';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const out = join(root, 'dist', 'kernels', 'distance.wasm');
mkdirSync(dirname(out), { recursive: true });
const { error, stderr } = await main([
  join(here, 'distance.as.ts'),
  '--outFile',
  out,
  '--textFile',
  out.replace(/\.wasm$/, '.wat'),
  '-O3',
  '--noAssert',
  '--runtime',
  'stub',
  '--use',
  'abort=',
  '--enable',
  'simd',
  '--enable',
  'threads',
  '--importMemory',
  '--sharedMemory',
  '--initialMemory',
  '1',
  '--maximumMemory',
  '65536',
  '--memoryBase',
  '0',
]);
if (error) {
  process.stderr.write(stderr.toString());
  throw error;
}
