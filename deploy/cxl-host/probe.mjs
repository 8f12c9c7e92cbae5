// Probe a running `strata serve` from inside the CXL test guest (deploy/cxl-host/guest-run.sh):
// print each tier's binding as GET /collections/{c} reports it (mode, node, pages,
// pages_on_node, pages_elsewhere), the collection's status and memory plan, then search the
// first N query vectors and write their answers (ids and scores) to a file, so that two runs
// (emulated and NUMA-bound) can be compared.
//
// Usage: node probe.mjs <base-url> <collection> <query.fvecs> <n> <answers.json> [cxl-node]
// STRATA_API_KEY, when set, is sent as the api-key header.
// Exit status: 0 if every tier bound in mode numa has pages_elsewhere == 0 (and, given a
// cxl-node, the CXL tier is bound to that node, the DRAM tier elsewhere), 1 otherwise.
import { readFileSync, writeFileSync } from 'node:fs';

const [base, name, queryFile, nArg, outFile, cxlNodeArg] = process.argv.slice(2);
const n = Number(nArg);
const key = process.env.STRATA_API_KEY;
const auth = key ? { 'api-key': key } : {};

async function getJson(path, init) {
  const res = await fetch(base + path, { ...init, headers: { ...auth, ...init?.headers } });
  const body = await res.json();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body.result;
}

const info = await getJson(`/collections/${name}`);
const s = info.strata;
console.log(`collection ${name}: status ${info.status}, points ${info.points_count}`);
console.log(`  memory: ${s.memory.mode} (${s.memory.reason})`);
for (const r of s.status_reasons) console.log(`  status reason: ${r}`);
let misplaced = 0;
for (const t of s.tiers) {
  const b = t.binding;
  console.log(
    `  tier ${t.kind}: nodes ${JSON.stringify(t.nodes)} bytes ${t.bytes} binding mode=${b.mode} node=${b.node} ` +
      `pages=${b.pages} pages_on_node=${b.pages_on_node} pages_elsewhere=${b.pages_elsewhere}` +
      (b.note ? ` note="${b.note}"` : ''),
  );
  if (b.mode === 'numa' && b.pages_elsewhere !== 0) misplaced++;
  if (cxlNodeArg !== undefined) {
    const want = Number(cxlNodeArg);
    const ok = t.kind === 'cxl' ? b.mode === 'numa' && b.node === want && b.pages_on_node === b.pages : b.node !== want;
    if (!ok) {
      console.log(`  tier ${t.kind}: expected ${t.kind === 'cxl' ? `every page on node ${want}` : `a node other than ${want}`}`);
      misplaced++;
    }
  }
}
console.log(`  binding JSON: ${JSON.stringify(s.tiers.map((t) => ({ kind: t.kind, ...t.binding })))}`);

// Query vectors: .fvecs rows are [int32 dim][dim x float32].
const buf = readFileSync(queryFile);
const dim = buf.readInt32LE(0);
const answers = [];
for (let i = 0; i < n; i++) {
  const off = i * (4 + 4 * dim) + 4;
  const vector = Array.from(new Float32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + 4 * dim)));
  const hits = await getJson(`/collections/${name}/points/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ vector, limit: 10, params: { hnsw_ef: 64 } }),
  });
  answers.push(hits.map((h) => [h.id, h.score]));
}
writeFileSync(outFile, JSON.stringify(answers));
console.log(`  searched ${n} queries; first answer ids ${JSON.stringify(answers[0].map((a) => a[0]))}`);
process.exit(misplaced === 0 ? 0 : 1);
