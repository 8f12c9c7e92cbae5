// A tier worker: owns one CXL expander's part of a tier and computes distances there, on the data
// where it lives. Started as one long-running piscina task that serves every search thread's
// channels until the engine stops it; only ids and distances cross.
import { throwsAcrossThreads } from '../../common/worker-errors.js';
import { setThreadAffinity, setThreadMemoryPolicy } from '../../tiers/numa.js';
import { stallNs } from '../../tiers/stall.js';
import { TieredIndex, type SharedIndexHandle } from '../../index/tiered/tiered-index.js';
import { CH_COUNT, CH_DONE, CH_HEADER, CH_IDS, CH_REQ, CH_STALL_NS, CH_STALLED_NS } from '../ndp/channel.js';
export interface ServeArgs {
  handle: SharedIndexHandle;
  expander: number;
  channels: SharedArrayBuffer[];
  bell: SharedArrayBuffer;
  stop: SharedArrayBuffer;
  /** NUMA node of this expander's memory: the worker's own allocations go there too (null: none). */
  node: number | null;
  /** Idle polls of the channels before sleeping on the doorbell. */
  spin: number;
  /** CPUs nearest the expander (its node has none of its own); null: leave the scheduler alone. */
  cpus: number[] | null;
}

export interface ServeReport {
  messages: number;
  ids: number;
  busyMs: number;
  injectedNs: number;
}

function serve(a: ServeArgs): ServeReport {
  if (a.node !== null) {
    try {
      setThreadMemoryPolicy(a.node);
    } catch {
      // placement of the worker's own scratch is best effort; the tier's pages are bound already
    }
  }
  if (a.cpus !== null) {
    try {
      setThreadAffinity(a.cpus);
    } catch {
      // pinning is an optimisation; without it the worker still serves its expander
    }
  }
  const index = TieredIndex.adopt(a.handle);
  const bell = new Int32Array(a.bell);
  const stop = new Int32Array(a.stop);
  const ctrls = a.channels.map((c) => new Int32Array(c));
  const segs = index.vectors.segments;
  const l2 = index.meta.metric === 'l2';
  const dim = index.meta.dim;
  const rep: ServeReport = { messages: 0, ids: 0, busyMs: 0, injectedNs: 0 };
  let idle = 0;
  for (;;) {
    const ring = Atomics.load(bell, a.expander);
    if (Atomics.load(stop, 0) !== 0) break;
    let served = false;
    for (const ctrl of ctrls) {
      const req = Atomics.load(ctrl, CH_REQ);
      if (req === Atomics.load(ctrl, CH_DONE)) continue;
      const t0 = performance.now();
      const n = ctrl[CH_COUNT]!;
      for (let i = 0; i < n; i++) {
        const at = CH_HEADER + 3 * i;
        const seg = segs[ctrl[at]!]!;
        const slot = ctrl[at + 1]!;
        const k = seg.kernels!;
        (l2 ? k.l2Batch : k.ipBatch)(seg.slotQuery(slot), seg.layout.recordOffset, seg.shape.stride, seg.slotIds(slot), ctrl[at + 2]!, dim, seg.slotOut(slot));
      }
      const ids = ctrl[CH_IDS]!;
      // Injection: the message's modelled time (near-data model, priced by the sender) is paid
      // here, before the answer, so every query waiting on it waits for all of it.
      const ask = ctrl[CH_STALL_NS]!;
      if (ask > 0) {
        ctrl[CH_STALLED_NS] = Math.round(stallNs(ask));
        rep.injectedNs += ask;
      }
      rep.messages++;
      rep.ids += ids;
      rep.busyMs += performance.now() - t0;
      Atomics.store(ctrl, CH_DONE, req);
      Atomics.notify(ctrl, CH_DONE);
      served = true;
    }
    if (served) idle = 0;
    else if (++idle > a.spin) {
      Atomics.wait(bell, a.expander, ring, 200);
      idle = 0;
    }
  }
  return rep;
}

export default throwsAcrossThreads(serve);
