// The dashboard (dashboard/, built by Vite into dist/dashboard/) at /dashboard: its files read once
// when the server starts and served from memory, without the API key (the page asks for it before
// its API calls). A server started from a tree where it was not built says how to build it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { StrataError } from '../../../common/errors.js';
import { projectRoot } from '../../../common/paths.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The built files by path under /dashboard/ ('' for index.html); empty when not built. */
function builtFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  if (!existsSync(join(dir, 'index.html'))) return files;
  files.set('', readFileSync(join(dir, 'index.html')));
  const assets = join(dir, 'assets');
  if (existsSync(assets)) for (const f of readdirSync(assets)) files.set(`assets/${f}`, readFileSync(join(assets, f)));
  return files;
}

export function registerDashboardRoutes(app: FastifyInstance, dir = join(projectRoot(), 'dist', 'dashboard')): void {
  const files = builtFiles(dir);
  const open = { config: { public: true } };
  app.get('/dashboard', open, async (_req, reply) => reply.redirect('/dashboard/'));
  const answer = (path: string, reply: FastifyReply) => {
    const file = files.get(path);
    if (file === undefined) {
      const message =
        files.size === 0 ? 'the dashboard is not built in this tree: run npm run build:dashboard (npm ci does)' : `no file ${path} in the dashboard`;
      throw new StrataError('STRATA_ROUTE_NOT_FOUND', message, {});
    }
    // Assets carry their content hash in their names; the page itself must be asked for each time.
    reply.header('cache-control', path === '' ? 'no-cache' : 'public, max-age=31536000, immutable');
    reply.type(TYPES[extname(path || 'index.html')] ?? 'application/octet-stream');
    return reply.send(file);
  };
  app.get('/dashboard/', open, async (_req, reply) => answer('', reply));
  app.get<{ Params: { file: string } }>('/dashboard/assets/:file', open, async (req, reply) => answer(`assets/${req.params.file}`, reply));
}
