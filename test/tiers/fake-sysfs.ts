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

/** Two nodes: node 0 with CPUs 0-3 and 8 GiB, node 1 CPU-less with 16 GiB at distance 14 (a CXL card). */
export function twoNodeCxlHost(): FakeTree {
  return {
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
