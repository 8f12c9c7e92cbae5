// The one reading of a byte size, for every flag and option that takes one (the DRAM budget, the
// server's body and answer limits). A bare unit letter is binary, as are the -iB units; only the
// -B units are decimal: "1k" = "1KiB" = 1024, "1KB" = 1000.

const POWERS: Readonly<Record<string, number>> = { b: 0, k: 1, m: 2, g: 3, t: 4 };

/** "1048576", "512k", "64MiB", "1.5GB" as a whole number of bytes; undefined when the text is not a size. */
export function parseByteSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?|b)?\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = (m[2] ?? 'b').toLowerCase();
  const base = unit.length === 2 && unit[1] === 'b' ? 1000 : 1024;
  return Math.floor(Number(m[1]) * base ** POWERS[unit[0]!]!);
}
