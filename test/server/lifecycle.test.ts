// The server's count of admitted requests: shutdown waits for exactly those, marks the answers still
// unsent `Connection: close`, and the bookkeeping keeps no request alive past its own scavenge.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import { Lifecycle } from '../../server/lifecycle.js';
import { distUrl, scavengesOf } from '../helpers/young-garbage.js';
import { makeTempDir, type TempDir } from '../helpers/temp.js';

/** What Lifecycle reads of a response: 'close', headersSent and setHeader. */
class FakeResponse extends EventEmitter {
  headersSent = false;
  readonly headers = new Map<string, string>();
  setHeader(name: string, value: string): void {
    this.headers.set(name, value);
  }
}

const readyEngine = { ready: true, catchingUp: () => null } as unknown as Engine;

let tmp: TempDir;
beforeAll(() => {
  tmp = makeTempDir('strata-lifecycle-');
});
afterAll(() => tmp.cleanup());

describe('Lifecycle', () => {
  it('counts a response until it closes, and is idle after the last one', async () => {
    const l = new Lifecycle(readyEngine);
    const a = new FakeResponse();
    const b = new FakeResponse();
    l.trackResponse(a as unknown as ServerResponse);
    l.trackResponse(b as unknown as ServerResponse);
    expect(l.inFlight).toBe(2);
    let idle = false;
    const waited = l.idle().then(() => {
      idle = true;
    });
    a.emit('close');
    expect(l.inFlight).toBe(1);
    await Promise.resolve();
    expect(idle).toBe(false);
    b.emit('close');
    await waited;
    expect(l.inFlight).toBe(0);
  });

  it('marks the answers still unsent Connection: close when draining starts, and only those', () => {
    const l = new Lifecycle(readyEngine);
    const sent = new FakeResponse();
    sent.headersSent = true;
    const unsent = new FakeResponse();
    const closed = new FakeResponse();
    for (const r of [sent, unsent, closed]) l.trackResponse(r as unknown as ServerResponse);
    closed.emit('close');
    l.markClosing();
    expect(unsent.headers.get('connection')).toBe('close');
    expect(sent.headers.size).toBe(0);
    expect(closed.headers.size).toBe(0);
  });

  it('keeps no response past its scavenge: 16 in flight, 200,000 tracked and closed, almost nothing promoted', () => {
    const child = `
      import { EventEmitter } from 'node:events';
      import { Lifecycle } from ${JSON.stringify(distUrl('server/lifecycle.js'))};
      const l = new Lifecycle({ ready: true, catchingUp: () => null });
      // A response's worth of young objects, as a real one holds.
      const response = () => Object.assign(new EventEmitter(), { headersSent: false, parts: Array.from({ length: 40 }, (_, i) => ({ i })) });
      const live = [];
      const churn = (n) => {
        for (let i = 0; i < n; i++) {
          const r = response();
          l.trackResponse(r);
          live.push(r);
          if (live.length > 16) live.shift().emit('close');
        }
      };
      churn(20000);
      for (let i = 0; i < 3; i++) globalThis.gc();
      console.log('---- start');
      churn(200000);
      console.log('---- end');
    `;
    const s = scavengesOf(tmp.dir, 'lifecycle-child.mjs', child, []);
    console.log(`lifecycle: ${s.scavenges} scavenges, ${(s.allocated / 1e6).toFixed(1)} MB allocated, ${(s.promoted / 1e6).toFixed(2)} MB promoted`);
    expect(s.scavenges).toBeGreaterThan(3);
    expect(s.promoted / s.allocated).toBeLessThan(0.01);
  });
});
