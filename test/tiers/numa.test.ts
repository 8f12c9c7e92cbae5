import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isStrataError, StrataError } from '../../common/errors.js';
import {
  bindToNode,
  checkBindPolicy,
  MPOL_BIND,
  MPOL_DEFAULT,
  numaSupport,
  pageNodes,
  probeAddon,
  rangePolicy,
  setThreadAffinity,
  setThreadMemoryPolicy,
  threadAffinity,
  threadMemoryPolicy,
  touchPages,
  verifyPlacement,
} from '../../tiers/numa.js';
import { readTopology } from '../../tiers/topology.js';

const support = numaSupport();
const hasNodeSysfs = existsSync('/sys/devices/system/node');
const skip = !support.available || !hasNodeSysfs;
const pageSize = support.available ? support.pageSize : 4096;
const online = hasNodeSysfs ? readTopology().online : [0];

/** A fresh 4 MiB shared WebAssembly.Memory (64 wasm pages) viewed as bytes. */
function wasmMemory(): Uint8Array {
  return new Uint8Array(new WebAssembly.Memory({ initial: 64, maximum: 64, shared: true }).buffer);
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

describe('numaSupport without the addon', () => {
  it('reports unavailable with a reason instead of throwing', () => {
    const { support: s, addon } = probeAddon('/nonexistent/strata_numa.node');
    expect(addon).toBeNull();
    expect(s.available).toBe(false);
    if (!s.available) expect(s.reason).toMatch(/not built|needs Linux/);
  });

  it('never throws from numaSupport() itself', () => {
    expect(typeof numaSupport().available).toBe('boolean');
  });
});

describe('touchPages', () => {
  it('faults pages in without changing their content', () => {
    const view = new Uint8Array(new SharedArrayBuffer(5 * 4096 + 123));
    for (let i = 0; i < view.length; i++) view[i] = (i * 31) & 0xff;
    const copy = view.slice();
    expect(touchPages(view)).toBeGreaterThanOrEqual(6);
    let differing = 0;
    for (let i = 0; i < view.length; i++) if (view[i] !== copy[i]) differing++;
    expect(differing).toBe(0);
  });

  it('touches every page a misaligned view overlaps', () => {
    const view = wasmMemory().subarray(100, 100 + 3 * pageSize);
    // Overlaps 4 pages: 3 full strides starting mid-page plus the partial last page.
    expect(touchPages(view)).toBe(4);
  });
});

describe.skipIf(skip)('NUMA addon on this host', () => {
  it('reports the page size and the allowed nodes', () => {
    expect(support.available).toBe(true);
    if (!support.available) return;
    expect(support.pageSize).toBeGreaterThanOrEqual(4096);
    expect(support.allowedNodes).toContain(0);
    expect(support.maxNode).toBe(Math.max(...support.allowedNodes));
  });

  it('binds a shared WebAssembly.Memory to node 0, and after touching every interior page is on node 0', () => {
    const view = wasmMemory();
    const r = bindToNode(view, 0);
    expect(r.node).toBe(0);
    expect(r.pages).toBeGreaterThan(0);
    expect(r.bytes).toBe(r.pages * pageSize);
    expect(r.offset + r.bytes).toBeLessThanOrEqual(view.length);
    expect(rangePolicy(view)).toEqual({ mode: MPOL_BIND, nodes: [0] });
    expect(checkBindPolicy(view, 0)).toEqual({ pages: r.pages, mismatched: 0, firstMismatch: -1 });

    touchPages(view);
    const status = pageNodes(view);
    expect(status.length).toBe(r.pages);
    for (let i = 0; i < status.length; i++) {
      if (status[i] !== 0) throw new Error(`page ${i} is on ${status[i]}, expected node 0`);
    }
    const p = verifyPlacement(view);
    expect(p).toEqual({ pages: r.pages, byNode: { 0: r.pages }, notPresent: 0, errors: 0, statuses: {} });
  });

  it('checks the policy of every page, so an unbound part of a range shows even on a one-node host', () => {
    const view = wasmMemory();
    const pages = view.length / pageSize;
    expect(checkBindPolicy(view, 0)).toEqual({ pages, mismatched: pages, firstMismatch: 0 });
    // Bind only pages 10..19: the first page's policy alone would say "unbound", the page nodes
    // (all on node 0 here) would say "bound"; the per-page policy says exactly which.
    bindToNode(view.subarray(10 * pageSize, 20 * pageSize), 0);
    expect(checkBindPolicy(view.subarray(10 * pageSize, 20 * pageSize), 0)).toEqual({ pages: 10, mismatched: 0, firstMismatch: -1 });
    expect(checkBindPolicy(view, 0)).toEqual({ pages, mismatched: pages - 10, firstMismatch: 0 });
    bindToNode(view.subarray(0, 10 * pageSize), 0);
    expect(checkBindPolicy(view, 0)).toEqual({ pages, mismatched: pages - 20, firstMismatch: 20 });
  });

  it('finds WebAssembly.Memory buffers page aligned, so the whole buffer is bound', () => {
    const view = wasmMemory();
    const r = bindToNode(view, 0);
    expect(r.offset).toBe(0);
    expect(r.bytes).toBe(view.length);
  });

  it('binds only the page-aligned interior of a misaligned view', () => {
    const view = wasmMemory().subarray(5, 5 + 10 * pageSize);
    const r = bindToNode(view, 0, { move: true });
    expect(r.offset).toBe(pageSize - 5);
    expect(r.pages).toBe(9);
    expect(pageNodes(view).length).toBe(9);
  });

  it('binds the interior of a plain SharedArrayBuffer and verifies it after touching', () => {
    const view = new Uint8Array(new SharedArrayBuffer(1 << 20));
    const r = bindToNode(view, 0, { move: true, strict: true });
    expect(r.pages).toBeGreaterThanOrEqual((1 << 20) / pageSize - 1);
    touchPages(view);
    expect(verifyPlacement(view)).toMatchObject({ pages: r.pages, byNode: { 0: r.pages }, notPresent: 0, errors: 0 });
  });

  it('binds nothing for a view smaller than a page', () => {
    const view = wasmMemory().subarray(10, 100);
    expect(bindToNode(view, 0)).toEqual({ node: 0, pages: 0, bytes: 0, offset: pageSize - 10 });
    expect(verifyPlacement(view).pages).toBe(0);
  });

  it('reports untouched fresh memory as not present rather than crashing', () => {
    const view = wasmMemory();
    const p = verifyPlacement(view);
    expect(p.pages).toBe(view.length / pageSize);
    expect(p.notPresent).toBe(p.pages);
    expect(p.errors).toBe(0);
    expect(p.byNode).toEqual({});
    expect(p.statuses).toEqual({ ENOENT: p.pages });
  });

  it.skipIf(online.includes(1))('fails to bind to node 1 on this single-node host with STRATA_NUMA_BIND naming node 1 and EINVAL', () => {
    const err = catchError(() => bindToNode(wasmMemory(), 1));
    expect(err).toBeInstanceOf(StrataError);
    expect(isStrataError(err, 'STRATA_NUMA_BIND')).toBe(true);
    const e = err as StrataError;
    expect(e.message).toContain('node 1');
    expect(e.message).toContain('EINVAL');
    expect(e.message).toContain('no such NUMA node');
    expect(e.details).toMatchObject({ node: 1, errno: 'EINVAL' });
  });

  it('fails to bind to a node beyond the online ones with EINVAL', () => {
    const node = Math.max(...online) + 1;
    const err = catchError(() => bindToNode(wasmMemory(), node));
    expect(isStrataError(err, 'STRATA_NUMA_BIND')).toBe(true);
    expect((err as StrataError).message).toContain(`node ${node}`);
  });

  it('rejects bad arguments with STRATA_INVALID_ARGUMENT', () => {
    expect(
      isStrataError(
        catchError(() => bindToNode(wasmMemory(), -1)),
        'STRATA_INVALID_ARGUMENT',
      ),
    ).toBe(true);
    expect(
      isStrataError(
        catchError(() => bindToNode(wasmMemory(), 0.5)),
        'STRATA_INVALID_ARGUMENT',
      ),
    ).toBe(true);
    const notAView = new Float32Array(4) as unknown as Uint8Array;
    expect(
      isStrataError(
        catchError(() => bindToNode(notAView, 0)),
        'STRATA_INVALID_ARGUMENT',
      ),
    ).toBe(true);
  });

  it('sets and resets the calling thread memory policy', () => {
    try {
      setThreadMemoryPolicy(0);
      expect(threadMemoryPolicy()).toEqual({ mode: MPOL_BIND, nodes: [0] });
    } finally {
      setThreadMemoryPolicy(null);
    }
    expect(threadMemoryPolicy()).toEqual({ mode: MPOL_DEFAULT, nodes: [] });
  });

  it.skipIf(online.includes(1))('fails to set the thread policy to node 1 with STRATA_NUMA_BIND', () => {
    const err = catchError(() => setThreadMemoryPolicy(1));
    expect(isStrataError(err, 'STRATA_NUMA_BIND')).toBe(true);
    expect((err as StrataError).message).toContain('EINVAL');
    expect(threadMemoryPolicy().mode).toBe(MPOL_DEFAULT);
  });

  it('pins the calling thread to a CPU and restores its affinity', () => {
    const before = threadAffinity();
    expect(before.length).toBeGreaterThan(0);
    try {
      setThreadAffinity([before[0]!]);
      expect(threadAffinity()).toEqual([before[0]]);
    } finally {
      setThreadAffinity(before);
    }
    expect(threadAffinity()).toEqual(before);
  });

  it('refuses to pin to a CPU this host does not have, with STRATA_NUMA_BIND', () => {
    expect(() => setThreadAffinity([8000])).toThrowError(expect.objectContaining({ code: 'STRATA_NUMA_BIND' }) as Error);
  });
});
