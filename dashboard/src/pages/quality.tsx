// Search quality: for a sample of the collection's points (matching a filter, if one is given), the
// recall@k of the approximate search against the exact one at several hnsw_ef, each point's stored
// vector as the query.
import { useState } from 'preact/hooks';
import { call } from '../api';
import type { Record_, ScoredPoint } from '../types';
import { act, ErrorBox, Grid } from '../ui';
import { pointVector } from '../vectors';

const EFS = [16, 32, 64, 128, 256];

interface Row {
  ef: number;
  recall: number;
}

export function QualityPage({ name, onNeedsKey }: { name: string; onNeedsKey: () => void }) {
  const [sample, setSample] = useState(20);
  const [k, setK] = useState(10);
  const [filterText, setFilterText] = useState('');
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const path = `/collections/${encodeURIComponent(name)}`;
  const run = async () => {
    let filter: unknown;
    try {
      filter = filterText.trim() === '' ? undefined : JSON.parse(filterText);
    } catch {
      setError('the filter is not JSON');
      return;
    }
    setRunning(true);
    await act(
      async () => {
        const page = await call<{ points: Record_[] }>('POST', `${path}/points/scroll`, {
          limit: sample,
          with_vector: true,
          with_payload: false,
          ...(filter !== undefined ? { filter } : {}),
        });
        const queries = page.points.map((p) => pointVector(p.vector)).filter((q) => q !== null);
        const searches = (params: Record<string, unknown>) =>
          call<ScoredPoint[][]>('POST', `${path}/points/search/batch`, {
            searches: queries.map((q) => ({ vector: q.name === '' ? q.vector : q, limit: k, params, ...(filter !== undefined ? { filter } : {}) })),
          });
        const exact = await searches({ exact: true });
        const out: Row[] = [];
        for (const ef of EFS) {
          const approx = await searches({ hnsw_ef: ef });
          let found = 0;
          let wanted = 0;
          approx.forEach((hits, i) => {
            const truth = new Set(exact[i]!.map((h) => String(h.id)));
            wanted += truth.size;
            for (const h of hits) if (truth.has(String(h.id))) found++;
          });
          out.push({ ef, recall: wanted > 0 ? found / wanted : 1 });
        }
        setRows(out);
      },
      setError,
      onNeedsKey,
    );
    setRunning(false);
  };
  return (
    <div>
      <h1>Search quality of {name}</h1>
      <div class="form">
        <label>
          Points sampled
          <input name="sample" type="number" min={1} max={1000} value={sample} onInput={(e) => setSample(Number((e.target as HTMLInputElement).value))} />
        </label>
        <label>
          k
          <input name="k" type="number" min={1} max={100} value={k} onInput={(e) => setK(Number((e.target as HTMLInputElement).value))} />
        </label>
        <label>
          Filter (Qdrant's JSON)
          <textarea name="filter" rows={2} value={filterText} onInput={(e) => setFilterText((e.target as HTMLTextAreaElement).value)} />
        </label>
        <button type="button" onClick={run} disabled={running}>
          {running ? 'Measuring…' : 'Measure'}
        </button>
      </div>
      <ErrorBox error={error} />
      {rows && (
        <Grid head={['hnsw_ef', `recall@${k} against exact`]} testid="quality">
          {rows.map((r) => (
            <tr key={r.ef} data-ef={r.ef}>
              <td class="num">{r.ef}</td>
              <td class="num" data-recall={r.recall}>
                {r.recall.toFixed(3)}
              </td>
            </tr>
          ))}
        </Grid>
      )}
    </div>
  );
}
