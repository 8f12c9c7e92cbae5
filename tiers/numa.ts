// NUMA placement of tier memory through the strata_numa addon (tiers/native).
//
// Tier data lives in shared memory (a shared WebAssembly.Memory or a SharedArrayBuffer); pass a
// Uint8Array view over it. Only whole pages can be bound, so binding and verification cover the
// page-aligned interior of the view; the partial pages at either edge are left alone (a shared
// WebAssembly.Memory starts on a page boundary, a plain SharedArrayBuffer usually does not).
//
// The addon is optional: importing this module never throws. numaSupport() says whether placement
// is possible and why not; the placement functions throw STRATA_NUMA_UNAVAILABLE when it is not.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { StrataError, invalidArgument, errorMessage } from '../common/errors.js';
import { projectRoot } from '../common/paths.js';
import { formatRangeList, readTopology } from './topology.js';

/** What the addon exports (see tiers/native/numa.c). */
export interface NumaAddon {
  bind(
    view: Uint8Array,
    node: number,
    flags: { move?: boolean; strict?: boolean },
  ): {
    address: number;
    firstPage: number;
    pages: number;
  };
  pageNodes(view: Uint8Array): Int32Array;
  setThreadPolicy(node: number): void;
  threadPolicy(): MemoryPolicy;
  rangePolicy(view: Uint8Array): MemoryPolicy | null;
  checkRangePolicy?(view: Uint8Array, mode: number, node: number): RangePolicyCheck;
  allowedNodes(): number[];
  maxNode(): number;
  pageSize(): number;
  setThreadAffinity(cpus: number[]): void;
  threadAffinity(): number[];
  /** Missing from addons built before it was added: check before calling. */
  exchangePaths?(a: string, b: string): void;
  /** The virtual address of the view's first byte (missing from older addons). */
  address?(view: Uint8Array): number;
}

/** A kernel memory policy: mode is MPOL_DEFAULT (0), MPOL_PREFERRED (1), MPOL_BIND (2), ... */
export interface MemoryPolicy {
  mode: number;
  nodes: number[];
}

/** How many interior pages of a range do not carry the expected policy. */
export interface RangePolicyCheck {
  pages: number;
  mismatched: number;
  /** Index (in pages from the first interior page) of the first page that does not, or -1. */
  firstMismatch: number;
}

export const MPOL_DEFAULT = 0;
export const MPOL_BIND = 2;

export type NumaSupport =
  | {
      available: true;
      addonPath: string;
      pageSize: number;
      /** Nodes this process may allocate on (its cpuset's mems). */
      allowedNodes: number[];
      maxNode: number;
    }
  | {
      available: false;
      addonPath: string;
      reason: string;
    };

export interface BindResult {
  node: number;
  /** Whole pages bound (the page-aligned interior of the view). */
  pages: number;
  /** pages × page size. */
  bytes: number;
  /** Byte offset in the view of the first bound page. */
  offset: number;
}

export interface Placement {
  /** Pages checked: the page-aligned interior of the view. */
  pages: number;
  /** Pages resident on each node. */
  byNode: Record<number, number>;
  /** Pages with no frame of their own yet: never touched (ENOENT) or mapping the shared zero page (EFAULT). */
  notPresent: number;
  /** Pages whose status was any other error. */
  errors: number;
  /** Count per negative move_pages status, by errno name (ENOENT, EFAULT, ...). */
  statuses: Record<string, number>;
}

const ENOENT = 2;
const EFAULT = 14;
const STATUS_NAMES: Record<number, string> = { 2: 'ENOENT', 12: 'ENOMEM', 13: 'EACCES', 14: 'EFAULT', 16: 'EBUSY', 22: 'EINVAL' };

/** Where `npm run build:native` puts the addon. */
export function defaultAddonPath(): string {
  return join(projectRoot(), 'tiers', 'native', 'build', 'Release', 'strata_numa.node');
}

interface Loaded {
  support: NumaSupport;
  /** The addon when NUMA placement is usable. */
  addon: NumaAddon | null;
  /** The addon whenever it loaded, even where the memory-policy syscalls are refused. */
  module: NumaAddon | null;
}

function errorCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e) {
    const code = (e as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

function message(e: unknown): string {
  return errorMessage(e);
}

/** Loads and probes the addon at `addonPath`. Never throws. */
export function probeAddon(addonPath: string): Loaded {
  let module: NumaAddon | null = null;
  const unavailable = (reason: string): Loaded => ({ support: { available: false, addonPath, reason }, addon: null, module });
  if (process.platform !== 'linux') return unavailable(`NUMA placement needs Linux (this is ${process.platform})`);
  if (!existsSync(addonPath)) {
    return unavailable(`the NUMA addon is not built (${addonPath} missing; run \`npm run build:native\`)`);
  }
  let addon: NumaAddon;
  try {
    addon = createRequire(import.meta.url)(addonPath) as NumaAddon;
    module = addon;
  } catch (e) {
    return unavailable(`the NUMA addon failed to load: ${message(e)}`);
  }
  try {
    // get_mempolicy: fails with ENOSYS on kernels without NUMA, EPERM under a seccomp profile that
    // reserves the memory-policy syscalls for CAP_SYS_NICE (Docker's default).
    const allowedNodes = addon.allowedNodes();
    return {
      support: { available: true, addonPath, pageSize: addon.pageSize(), allowedNodes, maxNode: addon.maxNode() },
      addon,
      module,
    };
  } catch (e) {
    const code = errorCode(e);
    const hint =
      code === 'ENOSYS'
        ? 'the kernel has no NUMA support'
        : code === 'EPERM'
          ? 'memory-policy syscalls need CAP_SYS_NICE (containers: --cap-add SYS_NICE)'
          : 'the memory-policy syscalls are not usable';
    return unavailable(`${hint}: ${message(e)}`);
  }
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded === undefined) loaded = probeAddon(defaultAddonPath());
  return loaded;
}

/** Whether NUMA placement is possible here, and if not, why. Never throws. */
export function numaSupport(): NumaSupport {
  return load().support;
}

function requireAddon(what: string): NumaAddon {
  const { support, addon } = load();
  if (!support.available || addon === null) {
    throw new StrataError('STRATA_NUMA_UNAVAILABLE', `${what}: NUMA placement is unavailable: ${support.available ? 'addon missing' : support.reason}`, {
      reason: support.available ? 'addon missing' : support.reason,
    });
  }
  return addon;
}

function checkView(view: unknown): asserts view is Uint8Array {
  if (!(view instanceof Uint8Array)) {
    throw invalidArgument('view', 'expected a Uint8Array over the tier memory (SharedArrayBuffer or WebAssembly.Memory buffer)');
  }
}

function checkNode(node: unknown): asserts node is number {
  if (typeof node !== 'number' || !Number.isInteger(node) || node < 0 || node > 1023) {
    throw invalidArgument('node', `expected a NUMA node id, an integer in 0..1023 (got ${String(node)})`);
  }
}

function hostNodesText(): { text: string; online: number[]; memory: number[] } {
  const topo = readTopology();
  const online = topo.online;
  const memory = topo.nodes.filter((n) => n.hasMemory).map((n) => n.id);
  const max = online.length > 0 ? Math.max(...online) : 0;
  const contiguous = online.length === max + 1;
  const text = online.length === 1 ? `node ${online[0]} only` : contiguous ? `nodes 0..${max}` : `nodes ${formatRangeList(online)}`;
  return { text, online, memory };
}

function bindHint(code: string | undefined, node: number): string {
  switch (code) {
    case 'EINVAL': {
      const host = hostNodesText();
      if (!host.online.includes(node)) return `no such NUMA node (this host has ${host.text})`;
      if (!host.memory.includes(node)) return `node ${node} has no memory`;
      return `node ${node} is not in this process's allowed memory nodes (cpuset mems) or the range is invalid`;
    }
    case 'EPERM':
      return 'needs CAP_SYS_NICE (containers: run with --cap-add SYS_NICE or a seccomp profile allowing mbind)';
    case 'EIO':
      return 'some pages are already on another node and could not be moved (strict binding)';
    case 'EFAULT':
      return 'part of the range is not mapped';
    case 'ENOMEM':
      return 'the kernel ran out of memory for the policy';
    case 'ENOSYS':
      return 'the kernel has no NUMA support';
    default:
      return 'unexpected failure';
  }
}

/**
 * Binds the page-aligned interior of `view` to NUMA node `node` (MPOL_BIND). Pages not yet touched
 * are then allocated on that node at first touch; with `move`, pages already present are migrated;
 * with `strict`, the call fails (EIO) if some cannot be. Throws STRATA_NUMA_BIND on failure.
 */
export function bindToNode(view: Uint8Array, node: number, opts: { move?: boolean; strict?: boolean } = {}): BindResult {
  checkView(view);
  checkNode(node);
  const addon = requireAddon(`binding memory to NUMA node ${node}`);
  const flags = { move: opts.move === true, strict: opts.strict === true };
  try {
    const r = addon.bind(view, node, flags);
    const pageSize = addon.pageSize();
    return { node, pages: r.pages, bytes: r.pages * pageSize, offset: r.firstPage - r.address };
  } catch (e) {
    const code = errorCode(e);
    const errnoText = code ?? 'unknown error';
    throw new StrataError(
      'STRATA_NUMA_BIND',
      `cannot bind ${view.byteLength} bytes to NUMA node ${node}: ${errnoText}: ${bindHint(code, node)} (${message(e)})`,
      { node, errno: code ?? null, bytes: view.byteLength },
      { cause: e },
    );
  }
}

/**
 * Where the pages of the page-aligned interior of `view` actually are (move_pages; moves nothing).
 * Report this, not what was asked for.
 */
export function verifyPlacement(view: Uint8Array): Placement {
  checkView(view);
  const addon = requireAddon('verifying NUMA placement');
  let status: Int32Array;
  try {
    status = addon.pageNodes(view);
  } catch (e) {
    throw new StrataError(
      'STRATA_NUMA_UNAVAILABLE',
      `cannot read page placement: ${message(e)}`,
      {
        errno: errorCode(e) ?? null,
      },
      { cause: e },
    );
  }
  const byNode: Record<number, number> = {};
  const statuses: Record<string, number> = {};
  let notPresent = 0;
  let errors = 0;
  for (let i = 0; i < status.length; i++) {
    const s = status[i]!;
    if (s >= 0) {
      byNode[s] = (byNode[s] ?? 0) + 1;
      continue;
    }
    const name = STATUS_NAMES[-s] ?? `E${-s}`;
    statuses[name] = (statuses[name] ?? 0) + 1;
    if (s === -ENOENT || s === -EFAULT) notPresent++;
    else errors++;
  }
  return { pages: status.length, byNode, notPresent, errors, statuses };
}

/** The node of each interior page (negative: -errno, e.g. -2 for a page never touched). */
export function pageNodes(view: Uint8Array): Int32Array {
  checkView(view);
  return requireAddon('reading page placement').pageNodes(view);
}

/** The memory policy of the first interior page of `view`, or null if it has no whole page. */
export function rangePolicy(view: Uint8Array): MemoryPolicy | null {
  checkView(view);
  return requireAddon('reading the memory policy of a range').rangePolicy(view);
}

/**
 * Checks, page by page (get_mempolicy with MPOL_F_ADDR), that the whole page-aligned interior of
 * `view` carries MPOL_BIND with the node mask {node}. Unlike the pages' current location, this
 * proves a binding on a one-node host too, where every page is on node 0 whatever the policy.
 */
export function checkBindPolicy(view: Uint8Array, node: number): RangePolicyCheck {
  checkView(view);
  checkNode(node);
  const addon = requireAddon('checking the memory policy of a range');
  if (typeof addon.checkRangePolicy !== 'function') {
    throw new StrataError('STRATA_NUMA_UNAVAILABLE', 'the NUMA addon predates checkRangePolicy (run `npm run build:native`)', { reason: 'old addon' });
  }
  return addon.checkRangePolicy(view, MPOL_BIND, node);
}

/**
 * Faults in every page of `view` without changing its content: an atomic OR with 0 at one byte
 * per page (a read-modify-write of the same value, so concurrent writers are not clobbered).
 * Works without the addon. Returns the number of bytes touched.
 */
export function touchPages(view: Uint8Array): number {
  checkView(view);
  const { support } = load();
  const pageSize = support.available ? support.pageSize : 4096;
  // Stepping by the page size from byte 0 lands once in every page the view overlaps, except
  // perhaps the last one, wherever the view starts; the last byte covers that.
  let touched = 0;
  for (let i = 0; i < view.length; i += pageSize) {
    Atomics.or(view, i, 0);
    touched++;
  }
  if (view.length > 0 && (view.length - 1) % pageSize !== 0) {
    Atomics.or(view, view.length - 1, 0);
    touched++;
  }
  return touched;
}

/**
 * Sets the calling thread's memory policy: MPOL_BIND to `node`, or MPOL_DEFAULT for null. Affects
 * only this thread's future allocations (run it inside the worker that should allocate).
 */
export function setThreadMemoryPolicy(node: number | null): void {
  if (node !== null) checkNode(node);
  const addon = requireAddon(node === null ? 'resetting the thread memory policy' : `binding this thread to NUMA node ${node}`);
  try {
    addon.setThreadPolicy(node ?? -1);
  } catch (e) {
    const code = errorCode(e);
    throw new StrataError(
      'STRATA_NUMA_BIND',
      `cannot set the thread memory policy to ${node === null ? 'default' : `NUMA node ${node}`}: ${code ?? 'unknown error'}` +
        (node === null ? '' : `: ${bindHint(code, node)}`) +
        ` (${message(e)})`,
      { node, errno: code ?? null },
      { cause: e },
    );
  }
}

/** The calling thread's memory policy. */
export function threadMemoryPolicy(): MemoryPolicy {
  return requireAddon('reading the thread memory policy').threadPolicy();
}

/**
 * Runs the calling thread only on `cpus` (sched_setaffinity on this thread): a tier worker on the
 * CPUs nearest its expander, search threads on the DRAM tier's node.
 */
export function setThreadAffinity(cpus: readonly number[]): void {
  if (cpus.length === 0) throw new StrataError('STRATA_INVALID_ARGUMENT', 'cpus: at least one CPU is needed', { field: 'cpus' });
  const addon = requireAddon(`pinning this thread to CPUs ${formatRangeList(cpus)}`);
  try {
    addon.setThreadAffinity([...cpus]);
  } catch (e) {
    throw new StrataError(
      'STRATA_NUMA_BIND',
      `cannot pin this thread to CPUs ${formatRangeList(cpus)}: ${errorCode(e) ?? 'unknown error'} (${message(e)})`,
      { errno: errorCode(e) ?? null },
      { cause: e },
    );
  }
}

/** The CPUs the calling thread may run on. */
export function threadAffinity(): number[] {
  return requireAddon('reading the thread CPU affinity').threadAffinity();
}

export type ExchangeResult = { exchanged: true } | { exchanged: false; reason: string };

/**
 * The virtual address of a view's first byte, or null where the addon did not load (or predates
 * address()). Layouts that keep tiers out of each other's transparent huge pages need it: a huge
 * page is aligned in the address space, and a WebAssembly.Memory only to its own page.
 */
export function viewAddress(view: Uint8Array): number | null {
  checkView(view);
  const { module } = load();
  if (module === null || typeof module.address !== 'function') return null;
  return module.address(view);
}

/** Whether viewAddress answers here. */
export function addressesReadable(): boolean {
  const { module } = load();
  return module !== null && typeof module.address === 'function';
}

/**
 * Swaps two existing paths atomically (renameat2 RENAME_EXCHANGE), so that neither name is ever
 * missing. Returns {exchanged: false, reason} when the swap cannot be done here (no addon, not Linux,
 * a kernel or filesystem without RENAME_EXCHANGE) and the caller must fall back; throws the errno
 * error for anything else (a missing path, no permission).
 */
export function exchangePaths(a: string, b: string): ExchangeResult {
  if (process.env['STRATA_TEST_NO_EXCHANGE'] === '1') return { exchanged: false, reason: 'disabled by STRATA_TEST_NO_EXCHANGE' };
  const { module, support } = load();
  if (module === null) return { exchanged: false, reason: support.available ? 'addon missing' : support.reason };
  if (typeof module.exchangePaths !== 'function') return { exchanged: false, reason: 'the NUMA addon predates exchangePaths (run `npm run build:native`)' };
  try {
    module.exchangePaths(a, b);
    return { exchanged: true };
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOSYS' || code === 'EINVAL' || code === 'EOPNOTSUPP')
      return { exchanged: false, reason: `renameat2(RENAME_EXCHANGE) unsupported here: ${message(e)}` };
    throw e;
  }
}
