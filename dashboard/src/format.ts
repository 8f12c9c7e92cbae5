// Numbers as a person reads them.
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

export function share(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)}%`;
}
