// Search: by a point's id (its stored vector) or a pasted vector, by any of the collection's vectors,
// with a filter, limit, hnsw_ef and re-rank; the hits with their scores, and what a search of the
// tiered (primary) vector cost: distances, each tier's reads and bytes, the modelled and the measured
// CXL stall, and a filtered search's plan.
import { useState } from 'preact/hooks';
import { call, callWithStats, viaRouter } from '../api';
import { bytes, count, share } from '../format';
import type { CollectionView, ScoredPoint, SearchStats } from '../types';
import { act, ErrorBox, Fields, Grid, useLoad } from '../ui';
import { type SearchableVector, searchableVectors } from '../vectors';

const KIND_TEXT: Record<SearchableVector['kind'], string> = { tiered: 'tiered', secondary: 'DRAM graph', sparse: 'sparse' };

interface Props {
  name: string;
  /** A point id to start from (Points' "find similar"). */
  startId: string | null;
  onNeedsKey: () => void;
}

function Cost({ s }: { s: SearchStats }) {
  const reads = (s.accesses?.dram ?? 0) + (s.accesses?.cxl ?? 0);
  return (
    <Fields
      rows={[
        ['distance computations', <span data-testid="distances">{count(s.distance_computations ?? 0)}</span>],
        ['reads from DRAM', `${share(reads > 0 ? (s.accesses?.dram ?? 0) / reads : null)} of ${count(reads)}`],
        ['bytes read', `DRAM ${bytes(s.bytes?.dram ?? 0)}, CXL ${bytes(s.bytes?.cxl ?? 0)}`],
        ['CXL stall', `modelled ${((s.modelled_cxl_extra_ns ?? 0) / 1000).toFixed(1)} µs, measured ${((s.stalled_ns ?? 0) / 1000).toFixed(1)} µs`],
        [
          'filter plan',
          s.filter ? `${s.filter.plan}: ${count(s.filter.matched)} points match (estimated ${count(Math.round(s.filter.estimated.exp))})` : 'no filter',
        ],
      ]}
    />
  );
}

export function SearchPage({ name, startId, onNeedsKey }: Props) {
  const [by, setBy] = useState<'id' | 'vector'>('id');
  const [id, setId] = useState(startId ?? '');
  const [vector, setVector] = useState('');
  const [filter, setFilter] = useState('');
  const [limit, setLimit] = useState(10);
  const [ef, setEf] = useState(64);
  const [rerank, setRerank] = useState('');
  const [hits, setHits] = useState<ScoredPoint[] | null>(null);
  const [stats, setStats] = useState<SearchStats | null>(null);
  const [routed, setRouted] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const info = useLoad(() => call<CollectionView>('GET', `/collections/${encodeURIComponent(name)}`), [name], onNeedsKey);
  const vectors = info.value ? searchableVectors(info.value.config.params.vectors, info.value.config.params.sparse_vectors) : [];
  const [chosen, setChosen] = useState<string | null>(null);
  const use = vectors.find((v) => v.name === chosen) ?? vectors[0];
  const run = async () => {
    let query: unknown;
    let f: unknown;
    try {
      query = by === 'id' ? (/^\d+$/.test(id.trim()) ? Number(id.trim()) : id.trim()) : JSON.parse(vector);
      f = filter.trim() === '' ? undefined : JSON.parse(filter);
    } catch {
      setError(by === 'vector' ? 'the vector or the filter is not JSON' : 'the filter is not JSON');
      return;
    }
    if (use === undefined) {
      setError(info.error ?? 'the collection is still loading');
      return;
    }
    // hnsw_ef is a graph's (none for a sparse vector); re-rank and the cost are the tiered index's.
    const params: Record<string, unknown> = use.kind === 'sparse' ? {} : { hnsw_ef: ef };
    if (use.kind === 'tiered' && rerank.trim() !== '') params['rerank'] = Number(rerank);
    await act(
      async () => {
        const router = await viaRouter();
        // A named vector is searched with `using`, as Qdrant's query API takes it.
        const r = await callWithStats<{ points: ScoredPoint[] }>('POST', `/collections/${encodeURIComponent(name)}/points/query`, {
          query,
          ...(use.name !== '' ? { using: use.name } : {}),
          limit,
          params,
          with_payload: true,
          with_stats: !router && use.kind === 'tiered',
          ...(f !== undefined ? { filter: f } : {}),
        });
        setHits(r.result.points);
        setRouted(router);
        setStats((r.strata as SearchStats | undefined) ?? null);
      },
      setError,
      onNeedsKey,
    );
  };
  return (
    <div>
      <h1>Search {name}</h1>
      <div class="form">
        <fieldset>
          <legend>Query by</legend>
          <label>
            <input type="radio" name="by" checked={by === 'id'} onChange={() => setBy('id')} /> a point's vector
          </label>
          <label>
            <input type="radio" name="by" checked={by === 'vector'} onChange={() => setBy('vector')} /> a vector
          </label>
        </fieldset>
        {vectors.length > 1 && (
          <label>
            Vector
            <select name="using" value={use?.name} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
              {vectors.map((v) => (
                <option key={v.name} value={v.name}>
                  {`${v.name === '' ? '(unnamed)' : v.name} (${KIND_TEXT[v.kind]})`}
                </option>
              ))}
            </select>
          </label>
        )}
        {by === 'id' ? (
          <label>
            Point id
            <input name="id" value={id} onInput={(e) => setId((e.target as HTMLInputElement).value)} />
          </label>
        ) : (
          <label>
            {use?.kind === 'sparse' ? 'Vector (JSON {"indices": […], "values": […]})' : 'Vector (JSON array)'}
            <textarea name="vector" rows={3} value={vector} onInput={(e) => setVector((e.target as HTMLTextAreaElement).value)} />
          </label>
        )}
        <label>
          Filter (Qdrant's JSON)
          <textarea name="filter" rows={2} value={filter} onInput={(e) => setFilter((e.target as HTMLTextAreaElement).value)} />
        </label>
        <label>
          Limit
          <input name="limit" type="number" min={1} value={limit} onInput={(e) => setLimit(Number((e.target as HTMLInputElement).value))} />
        </label>
        <label>
          hnsw_ef
          <input
            name="ef"
            type="number"
            min={1}
            value={ef}
            disabled={use?.kind === 'sparse'}
            onInput={(e) => setEf(Number((e.target as HTMLInputElement).value))}
          />
        </label>
        <label>
          Re-rank (empty: the default)
          <input
            name="rerank"
            type="number"
            min={0}
            value={rerank}
            disabled={use !== undefined && use.kind !== 'tiered'}
            onInput={(e) => setRerank((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="button" onClick={run}>
          Search
        </button>
      </div>
      <ErrorBox error={error} />
      {hits && (
        <Grid head={['id', 'score', 'payload']} testid="hits">
          {hits.map((h) => (
            <tr key={String(h.id)} data-hit={String(h.id)}>
              <td class="num">{String(h.id)}</td>
              <td class="num">{h.score.toFixed(4)}</td>
              <td>
                <code>{JSON.stringify(h.payload)}</code>
              </td>
            </tr>
          ))}
        </Grid>
      )}
      {hits && use !== undefined && use.kind !== 'tiered' && (
        <p data-testid="cost-note">
          Cost: measured for the tiered vector only; this search used {use.kind === 'sparse' ? 'an inverted index' : 'a DRAM graph'}.
        </p>
      )}
      {hits && routed && use?.kind === 'tiered' && (
        <p data-testid="cost-note">
          Cost: through the router each shard measures its own search, and they do not add up to one; ask a shard server for a search's cost.
        </p>
      )}
      {stats && (
        <>
          <h2>Cost</h2>
          <Cost s={stats} />
        </>
      )}
    </div>
  );
}
