// Writes fake sysfs trees into a temp dir for topology tests.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type FakeTree = Record<string, string>;

/** Creates a temp dir holding `files` (relative path -> content); returns its path. */
export function writeFakeSysfs(files: FakeTree): string {
  const root = mkdtempSync(join(tmpdir(), 'strata-sysfs-'));
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return root;
}

export function removeFakeSysfs(root: string): void {
  rmSync(root, { recursive: true, force: true });
}

const N = 'devices/system/node';
const T = 'devices/virtual/memory_tiering';
const CXL = 'bus/cxl/devices';

/**
 * A CXL ram region as the kernel shows it: bus/cxl/devices/regionZ with mode, size (hex) and its
 * endpoint decoders, onlined through dax_regionZ/daxZ.0 whose target_node is the node it became.
 * `node` null: a region whose memory was never onlined (no dax device).
 */
export function cxlRegion(region: number, node: number | null, o: { mode?: string; sizeBytes?: number; targets?: string[] } = {}): FakeTree {
  const dir = `${CXL}/region${region}`;
  const files: FakeTree = {
    [`${dir}/mode`]: `${o.mode ?? 'ram'}\n`,
    [`${dir}/size`]: `0x${(o.sizeBytes ?? 16 * 1024 ** 3).toString(16)}\n`,
    [`${dir}/devtype`]: 'cxl_region\n',
    [`bus/cxl/drivers_autoprobe`]: '1\n',
  };
  (o.targets ?? [`decoder${region + 2}.0`]).forEach((t, i) => (files[`${dir}/target${i}`] = `${t}\n`));
  if (node !== null) files[`${dir}/dax_region${region}/dax${region}.0/target_node`] = `${node}\n`;
  return files;
}

/**
 * A CXL pmem region as Linux 6.1 shows it after `cxl create-region -t pmem`, `ndctl create-namespace
 * -m devdax` and `daxctl reconfigure-device --mode=system-ram` (read off a QEMU guest): regionZ has
 * no `mode`, a pmem_regionZ child, and `resource` / `size`; the dax device is under the nvdimm bus,
 * and the node shows only in the memory blocks of the range, the first of which the namespace keeps
 * for its metadata (not online). `node` null: never onlined.
 */
export function cxlPmemRegion(region: number, node: number | null, o: { start?: number; sizeBytes?: number; blockBytes?: number } = {}): FakeTree {
  const dir = `${CXL}/region${region}`;
  const start = o.start ?? 0x390000000;
  const size = o.sizeBytes ?? 512 * 1024 ** 2;
  const block = o.blockBytes ?? 128 * 1024 ** 2;
  const files: FakeTree = {
    [`${dir}/size`]: `0x${size.toString(16)}\n`,
    [`${dir}/resource`]: `0x${start.toString(16)}\n`,
    [`${dir}/commit`]: '1\n',
    [`${dir}/target0`]: `decoder${region + 2}.0\n`,
    [`${dir}/pmem_region${region}/uevent`]: '',
    [`bus/cxl/drivers_autoprobe`]: '1\n',
    ['devices/system/memory/block_size_bytes']: `${block.toString(16)}\n`,
  };
  const first = start / block;
  for (let i = first; i < first + size / block; i++) {
    files[`devices/system/memory/memory${i}/phys_index`] = `${i.toString(16)}\n`;
    if (node !== null && i > first) files[`devices/system/memory/memory${i}/node${node}/uevent`] = '';
  }
  return files;
}

/** HMAT performance of node `node`'s memory: read latency (ns) and bandwidth (MB/s). */
export function hmat(node: number, latencyNs: number, bandwidthMBs: number, access: 'access0' | 'access1' = 'access1'): FakeTree {
  const dir = `${N}/node${node}/${access}/initiators`;
  return { [`${dir}/read_latency`]: `${latencyNs}\n`, [`${dir}/read_bandwidth`]: `${bandwidthMBs}\n` };
}

/** twoNodeCxlHost without any CXL or HMAT information: a memory-only node 1 of unknown kind (a VM's, HBM, PMem). */
export function twoNodeMemoryOnlyHost(): FakeTree {
  return Object.fromEntries(Object.entries(twoNodeCxlHost()).filter(([k]) => !k.startsWith('bus/cxl') && !k.includes('/access')));
}

/**
 * Two nodes: node 0 with CPUs 0-3 and 8 GiB, node 1 CPU-less with 16 GiB at distance 14: a CXL card,
 * as its region0 (onlined as node 1) and its HMAT figures (260 ns, 30 GB/s vs 110 ns, 100 GB/s) say.
 */
export function twoNodeCxlHost(): FakeTree {
  return {
    ...cxlRegion(0, 1),
    ...hmat(0, 110, 100_000),
    ...hmat(1, 260, 30_000),
    [`${N}/online`]: '0-1\n',
    [`${N}/possible`]: '0-3\n',
    [`${N}/has_cpu`]: '0\n',
    [`${N}/has_memory`]: '0-1\n',
    [`${N}/node0/cpulist`]: '0-3\n',
    [`${N}/node0/distance`]: '10 14\n',
    [`${N}/node0/meminfo`]: 'Node 0 MemTotal:        8388608 kB\nNode 0 MemFree:         4194304 kB\nNode 0 MemUsed:         4194304 kB\n',
    [`${N}/node1/cpulist`]: '\n',
    [`${N}/node1/distance`]: '14 10\n',
    [`${N}/node1/meminfo`]: 'Node 1 MemTotal:       16777216 kB\nNode 1 MemFree:        16000000 kB\nNode 1 MemUsed:           777216 kB\n',
    [`${T}/memory_tier4/nodelist`]: '0\n',
    [`${T}/memory_tier22/nodelist`]: '1\n',
    [`${T}/uevent`]: '',
  };
}
