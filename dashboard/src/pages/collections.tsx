// Collections: each collection's status, points, code and budget, its memory part by part in each
// tier (GET /collections/{c}/memory), the tiers' NUMA binding as the server verified it, and the
// live part (fresh points, deletes, compaction).
import { call } from '../api';
import { bytes, count, share } from '../format';
import type { CollectionView, Memory } from '../types';
import { ErrorBox, Fields, Grid, useLoad } from '../ui';
import { allVectors, type VectorParams } from '../vectors';

const vectorText = (p: VectorParams & { name: string }): string => `${p.name === '' ? '' : `${p.name}: `}${p.size}-d, ${p.distance}`;
/** The primary vector (tiered), then each secondary one (a DRAM graph of its own). */
const vectorsText = (all: Array<VectorParams & { name: string }>): string =>
  all.map((p, i) => `${vectorText(p)}${all.length > 1 ? (i === 0 ? ' (tiered)' : ' (DRAM graph)') : ''}`).join('; ');

interface Props {
  name: string;
  onNeedsKey: () => void;
}

function MemoryTable({ memory }: { memory: Memory }) {
  return (
    <Grid head={['part', 'DRAM', 'CXL']} testid="memory">
      {memory.parts.map((p) => (
        <tr key={p.part} data-part={p.part}>
          <td>{p.part}</td>
          <td class="num" data-bytes={p.dram}>
            {p.dram > 0 ? bytes(p.dram) : ''}
          </td>
          <td class="num" data-bytes={p.cxl}>
            {p.cxl > 0 ? bytes(p.cxl) : ''}
          </td>
        </tr>
      ))}
      <tr class="total" data-part="total">
        <th scope="row">total</th>
        <td class="num" data-bytes={memory.total.dram}>
          {bytes(memory.total.dram)}
        </td>
        <td class="num" data-bytes={memory.total.cxl}>
          {bytes(memory.total.cxl)}
        </td>
      </tr>
    </Grid>
  );
}

export function CollectionCard({ name, onNeedsKey }: Props) {
  const info = useLoad(() => call<CollectionView>('GET', `/collections/${encodeURIComponent(name)}`), [name], onNeedsKey);
  const memory = useLoad(() => call<Memory>('GET', `/collections/${encodeURIComponent(name)}/memory`), [name], onNeedsKey);
  const v = info.value;
  const s = v?.strata;
  return (
    <section class="card" data-collection={name}>
      <h2>
        <a href={`#/points/${encodeURIComponent(name)}`}>{name}</a>{' '}
        {v && (
          <span class={`status ${v.status}`} data-testid="status">
            {v.status}
          </span>
        )}
      </h2>
      <ErrorBox error={info.error ?? memory.error} />
      {v && (
        <Fields
          rows={[
            ['points', <span data-testid="points">{count(v.points_count)}</span>],
            ['vectors', <span data-testid="vectors">{vectorsText(allVectors(v.config.params.vectors))}</span>],
            ['segments', count(v.segments_count)],
            ['code in DRAM', s?.code ? `${s.code.kind}, ${s.code.bytes_per_vector} B a vector` : 'none (full vectors)'],
            [
              'DRAM budget',
              s?.placement
                ? `${bytes(s.placement.dram_budget_bytes)} (${s.placement.policy} placement, predicted DRAM share ${share(s.placement.predicted_dram_share)})`
                : '–',
            ],
            [
              'promotion pool',
              s?.placement?.promotion_pool
                ? `${s.placement.promotion_pool.tenants} of ${s.placement.promotion_pool.slots} slots, ${s.placement.promotion_pool.moves} moves`
                : '–',
            ],
            ['memory', s?.memory ? `${s.memory.mode}: ${s.memory.reason}` : '–'],
            [
              'writes',
              s?.read_only
                ? 'read-only'
                : s?.live
                  ? `${count(s.live.fresh_points)} fresh points, ${count(s.live.hidden_base_points)} base points hidden, operation ${s.live.applied_operation_id} applied`
                  : '–',
            ],
            ['replication', s?.live?.write_log_seq != null ? `shared write log at ${s.live.write_log_seq}` : 'none'],
            ['reasons', s?.status_reasons.length ? s.status_reasons.join('; ') : 'none'],
          ]}
        />
      )}
      {s?.tiers && s.tiers.length > 0 && (
        <Grid head={['tier', 'nodes', 'bytes', 'binding']} testid="tiers">
          {s.tiers.map((t) => (
            <tr key={t.kind}>
              <td>{t.kind}</td>
              <td class="num">{count(t.nodes)}</td>
              <td class="num">{bytes(t.bytes)}</td>
              <td>{t.binding.note}</td>
            </tr>
          ))}
        </Grid>
      )}
      {memory.value && <MemoryTable memory={memory.value} />}
    </section>
  );
}

export function CollectionsPage({ names, onNeedsKey }: { names: string[]; onNeedsKey: () => void }) {
  return (
    <div>
      <h1>Collections</h1>
      {names.length === 0 && <p>No collections.</p>}
      {names.map((n) => (
        <CollectionCard key={n} name={n} onNeedsKey={onNeedsKey} />
      ))}
    </div>
  );
}
