import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, strata } from '../helpers/cli.js';

// The router and serve take their listening options from one place (cli/listen-options.ts), so both
// refuse the same bad values with the same words, before listening on anything.
describe('the listening options of serve and the router', () => {
  beforeAll(() => ensureBuilt());

  const router = ['router', '--shards', 'http://127.0.0.1:1', '--port', '0', '--no-grpc'];
  const serve = ['serve', '--port', '0', '--no-grpc', '--no-qdrant-grpc', '--memory', 'emulate'];

  it('refuse a log level that does not exist, naming the flag and the levels', () => {
    for (const cmd of [router, serve]) {
      const r = strata([...cmd, '--log-level', 'loud']);
      expect(r.status, r.stderr).not.toBe(0);
      expect(r.stderr).toMatch(/--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"/);
    }
  });

  it('refuse a host other machines reach without an API key, in the same words', () => {
    for (const cmd of [router, serve]) {
      const r = strata([...cmd, '--host', '0.0.0.0'], 60_000);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/--host: 0\.0\.0\.0 takes connections from other machines and no API key is set: .*--insecure-no-auth/);
    }
  });
});
