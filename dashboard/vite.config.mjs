// The dashboard's build: Vite over dashboard/ into dist/dashboard/, served by strata serve at
// /dashboard. Preact's JSX through Vite's own transform; every asset is bundled, nothing is fetched
// from a CDN at run time.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/dashboard/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)), emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
});
